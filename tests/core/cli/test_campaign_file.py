"""``run --config campaign.toml``: every run option as a key, the command line wins, an unknown
key or a bad value is one line naming the key's line; the store keeps the options and
``results --config`` writes them back as a file that re-runs the same campaign."""

from __future__ import annotations

import sqlite3

from explaincheck.core.cli.main import main

CAMPAIGN = """\
# the README walkthrough
env = "frozen_lake"
llm = ["random", "oracle"]
categories = "satisfy,best_action"
budget = 3
selection = "both"
seed = 7
"""


def executions(db) -> list[tuple]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT exec_key, llm, category, reply, verdict FROM executions ORDER BY exec_key"
        ).fetchall()


def test_campaign_file_runs_and_the_command_line_wins(tmp_path, capsys):
    config = tmp_path / "campaign.toml"
    config.write_text(CAMPAIGN)
    db = tmp_path / "a.sqlite"
    assert main(["run", "--config", str(config), "--db", str(db), "--budget", "2"]) == 0
    stored = executions(db)
    assert {row[1] for row in stored} == {"random", "oracle"}
    assert {row[2] for row in stored} == {"satisfy", "best_action"}
    # budget 2 from the command line, not 3 from the file: 2 categories x 2 x 2 selections x 2
    assert len(stored) == 16
    capsys.readouterr()
    written = tmp_path / "again.toml"
    assert main(["results", "--db", str(db), "--config", str(written)]) == 0
    text = written.read_text()
    assert "budget = 2" in text and "seed = 7" in text and 'llm = ["random", "oracle"]' in text
    again = tmp_path / "b.sqlite"
    assert main(["run", "--config", str(written), "--db", str(again)]) == 0
    assert executions(again) == stored  # the written file re-runs the same campaign


def test_unknown_key_and_bad_values_name_the_line(tmp_path, capsys):
    config = tmp_path / "campaign.toml"
    config.write_text(CAMPAIGN + "budgt = 4\n")
    assert main(["run", "--config", str(config), "--db", str(tmp_path / "x.sqlite")]) == 2
    err = capsys.readouterr().err
    assert f"{config}, line 8: unknown key 'budgt'" in err and "Traceback" not in err
    config.write_text(CAMPAIGN.replace("budget = 3", 'budget = "many"'))
    assert main(["run", "--config", str(config)]) == 2
    assert "line 5: budget = 'many' is not valid" in capsys.readouterr().err
    config.write_text(CAMPAIGN.replace('selection = "both"', 'selection = "best"'))
    assert main(["run", "--config", str(config)]) == 2
    assert "line 6: selection must be one of prioritized, random, both" in capsys.readouterr().err
    config.write_text('env = "frozen_lake"\nbudget = [1, 2]\n')
    assert main(["run", "--config", str(config)]) == 2
    assert "line 2: budget takes one value" in capsys.readouterr().err
    config.write_text("env = \n")
    assert main(["run", "--config", str(config)]) == 2
    assert str(config) in capsys.readouterr().err
    config.write_text('env = "frozen_lake"\n')
    assert main(["run", "--config", str(config)]) == 2
    assert "--llm is required (on the command line or in --config)" in capsys.readouterr().err
    assert main(["run", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read campaign file" in capsys.readouterr().err

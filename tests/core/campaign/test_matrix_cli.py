"""A whole study in one command: ``run --env all`` (or several ``--env``, or a campaign file's
list) runs one campaign per environment into one results file. Interrupted with Ctrl-C and run
again, every environment's cases are stored once; ``report`` covers the seven; the cost limit
holds over the whole matrix; options that belong to one model are refused with several."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.cli.main import main
from explaincheck.core.environments.registry import BUILTIN_IDS, PAPER_ORDER

MUST_SHOW = ["run", "--env", "all", "--llm", "oracle", "--llm", "random", "--budget", "5"]


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "explaincheck.core.cli.main", *args]


def executions(db) -> list[tuple[str, str, str]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT exec_key, environment, finished_at FROM executions"
        ).fetchall()


def environments_stored(db) -> int:
    try:
        with sqlite3.connect(db) as connection:
            found = connection.execute("SELECT COUNT(DISTINCT environment) FROM executions")
            return int(found.fetchone()[0])
    except sqlite3.OperationalError:  # not created yet, or locked for a moment
        return 0


def test_run_env_all_interrupted_and_resumed_stores_every_case_once(tmp_path, capsys):
    db = tmp_path / "study.sqlite"
    command = cli(*MUST_SHOW, "--db", str(db))
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 600  # seven oracles on a cold cache, a loaded machine
        while not (db.exists() and environments_stored(db) >= 2):
            assert process.poll() is None, process.communicate()
            if time.monotonic() > deadline:  # a guard against a hang, not a speed figure
                pytest.fail("the matrix never reached its second environment")
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)  # mid-run: in its second environment
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    # seven built-in environments, and an installed plugin's (the suite may run with one)
    assert f"{len(BUILTIN_IDS)} environments, one campaign each:" in err
    assert "Traceback" not in err
    line = next(x for x in err.splitlines() if "interrupted; " in x)
    stored, planned = (
        int(n) for n in line.split("interrupted; ")[1].split(" executions")[0].split(" of ")
    )
    before = {key: finished for key, _, finished in executions(db)}
    assert stored == len(before) < planned  # one total over the matrix, not one environment's
    with sqlite3.connect(db) as connection:  # every environment's campaign, begun or not
        statuses = dict(connection.execute("SELECT environment, status FROM campaigns"))
    assert set(statuses) == set(BUILTIN_IDS) and statuses[BUILTIN_IDS[-1]] != "finished"

    resumed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming: " in resumed.stderr
    rows = executions(db)
    keys = [key for key, _, _ in rows]
    assert len(keys) == len(set(keys)) == planned  # every case once, none duplicated
    assert {env for _, env, _ in rows} == set(BUILTIN_IDS) >= set(PAPER_ORDER)
    assert all(before[key] == finished for key, _, finished in rows if key in before)
    with sqlite3.connect(db) as connection:
        campaigns = connection.execute("SELECT environment, planned, status FROM campaigns")
        campaigns = campaigns.fetchall()
    assert [env for env, _, _ in campaigns] == list(BUILTIN_IDS)  # one campaign each
    assert sum(n for _, n, _ in campaigns) == planned
    assert {status for _, _, status in campaigns} == {"finished"}

    assert main(["report", "--db", str(db), "--out", str(tmp_path / "report")]) == 0
    printed = capsys.readouterr().out
    over = f"{planned:,} executions over {len(BUILTIN_IDS)} environments; LLMs: oracle, random"
    assert printed.startswith(over)
    table = printed.split("Table 1 — score per category (prioritised)")[1].split("\n\n")[0]
    assert all(env in table for env in PAPER_ORDER)


def test_a_campaign_file_runs_a_list_and_results_config_writes_it_back(tmp_path, capsys):
    config = tmp_path / "study.toml"
    config.write_text(
        'env = ["frozen_lake", "water_jug"]\nllm = ["random"]\n'
        'categories = "satisfy,best_action"\nbudget = 1\n'
    )
    db = tmp_path / "s.sqlite"
    assert main(["run", "--config", str(config), "--db", str(db)]) == 0
    first = executions(db)
    assert {env for _, env, _ in first} == {"frozen_lake", "water_jug"}
    capsys.readouterr()
    written = tmp_path / "again.toml"
    assert main(["results", "--db", str(db), "--config", str(written)]) == 0
    assert 'env = ["frozen_lake", "water_jug"]' in written.read_text()
    assert main(["run", "--config", str(written)]) == 0
    assert executions(db) == first  # the same two campaigns, resumed: nothing asked again
    # the command line's --env replaces the file's list
    assert main(["run", "--config", str(config), "--env", "dam", "--db", str(db)]) == 0
    assert {env for _, env, _ in executions(db)} == {"frozen_lake", "water_jug", "dam"}
    config.write_text('env = "all"\nllm = ["random"]\ncategories = "satisfy"\nbudget = 1\n')
    other = tmp_path / "all.sqlite"
    assert main(["run", "--config", str(config), "--db", str(other)]) == 0
    assert {env for _, env, _ in executions(other)} == set(BUILTIN_IDS)


@pytest.mark.parametrize(
    "extra, line",
    [
        (
            ["--env", "all", "--const", "N=3"],
            f"--const belongs to one model, but --env names {len(BUILTIN_IDS)} environments",
        ),
        (
            ["--env", "frozen_lake", "--env", "dam", "--goal", "goal"],
            "--goal belongs to one model, but --env names 2 environments",
        ),
        (
            ["--env", "frozen_lake", "--env", "dam", "--policy", "p.json"],
            "--policy belongs to one model, but --env names 2 environments",
        ),
        (
            ["--env", "frozen_lake", "--env", "dam", "--property", 'Pmax=? [F "goal"]'],
            "--property belongs to one model, but --env names 2 environments",
        ),
        (["--env", "frozen_lake", "--env", "nowhere"], "'nowhere' is neither a built-in"),
    ],
)
def test_what_cannot_run_over_several_environments_is_one_line(extra, line, tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    assert main(["run", "--llm", "random", "--budget", "1", *extra, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and line in err and "Traceback" not in err
    assert not db.exists()  # nothing planned was asked, no results file left behind


MODEL = "standin-1b"
PRICE = f"{MODEL}=2000/8000"  # a frozen_lake reply costs about 1.05 here, a water_jug one 0.7-1


def test_the_cost_limit_holds_over_the_whole_matrix(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    with StandinOpenAI({MODEL: Script()}) as server:
        command = [
            "run", "--env", "frozen_lake", "--env", "water_jug", "--llm", f"openai:{MODEL}",
            "--openai-base-url", server.base_url, "--categories", "satisfy,best_action",
            "--budget", "2", "--concurrency", "1", "--price", PRICE, "--max-cost", "5.5",
            "--db", str(db),
        ]  # fmt: skip
        assert main(command) == 1
        assert "stopped at --max-cost 5.5000" in capsys.readouterr().err
        asked = len(server.chats())
        stored = [env for _, env, _ in executions(db)]
        # frozen_lake's four replies cost about 4.2; water_jug's stopped at the limit
        assert stored.count("frozen_lake") == 4 and 1 <= stored.count("water_jug") < 4
        assert main(command) == 1  # again: the limit counts both environments' replies
        assert len(server.chats()) == asked  # so nothing more is asked
    assert "stopped at --max-cost 5.5000" in capsys.readouterr().err
    assert main(["results", "--db", str(db), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(stored)


def test_shards_of_a_study_merged_equal_the_whole_study(tmp_path, capsys):
    study = ["run", "--env", "frozen_lake", "--env", "dam", "--llm", "random", "--llm", "oracle"]
    study += ["--categories", "satisfy,best_action", "--budget", "3"]
    assert main([*study, "--db", str(tmp_path / "whole.sqlite")]) == 0
    for i in (1, 2):
        assert main([*study, "--shard", f"{i}/2", "--db", str(tmp_path / f"s{i}.sqlite")]) == 0
    shards = [executions(tmp_path / f"s{i}.sqlite") for i in (1, 2)]
    # each shard holds part of every environment's campaign, none holds a key twice
    for rows in shards:
        assert {env for _, env, _ in rows} == {"frozen_lake", "dam"}
        assert 0 < len(rows) < len(executions(tmp_path / "whole.sqlite"))
    merged = tmp_path / "merged.sqlite"
    inputs = [str(tmp_path / f"s{i}.sqlite") for i in (1, 2)]
    assert main(["merge", *inputs, "--out", str(merged)]) == 0
    whole = sorted(key for key, _, _ in executions(tmp_path / "whole.sqlite"))
    assert sorted(key for key, _, _ in executions(merged)) == whole
    assert len(whole) == len(set(whole))
    with sqlite3.connect(merged) as connection:
        campaigns = connection.execute("SELECT environment FROM campaigns").fetchall()
    assert sorted(env for (env,) in campaigns) == ["dam", "frozen_lake"]
    assert main([*study, "--db", str(merged)]) == 0  # the study resumed there: nothing missing
    assert sorted(key for key, _, _ in executions(merged)) == whole
    # a campaign of another environment that is not of this study is refused in one line
    other = tmp_path / "other.sqlite"
    one = ["run", "--env", "water_jug", "--llm", "random", "--llm", "oracle"]
    one += ["--categories", "satisfy,best_action", "--budget", "2"]
    assert main([*one, "--db", str(other)]) == 0
    capsys.readouterr()
    refused = tmp_path / "refused.sqlite"
    assert main(["merge", inputs[0], str(other), "--out", str(refused)]) == 2
    err = capsys.readouterr().err
    assert "holds another campaign than" in err and "differ in budget: 3 vs 2" in err
    assert err.count("\n") == 1 and not refused.exists()


def test_a_left_out_category_is_said_once_over_the_matrix(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    argv = ["run", "--env", "frozen_lake", "--env", "water_jug", "--llm", "random"]
    assert main([*argv, "--budget", "2", "--db", str(db)]) == 0
    err = capsys.readouterr().err
    assert err.count("policy_reach: not applicable (no policy is loaded") == 1
    assert err.count("  bottleneck: not applicable (the model has no bottleneck state)") == 1
    water_jug = err.split("explaincheck run: water_jug:")[1].split("explaincheck run:")[0]
    assert "policy_reach, policy_optimal, policy_better, policy_regret: left out as above" in (
        water_jug
    )


def test_a_study_killed_outright_names_every_environment_it_planned(tmp_path):
    # SIGKILL leaves no moment to write anything: the study's campaigns are recorded before the
    # first question, so the file still says what was planned, and a resume finishes it
    db = tmp_path / "killed.sqlite"
    envs = ["--env", "frozen_lake", "--env", "water_jug", "--env", "dam"]
    with StandinOpenAI({MODEL: Script(delay=0.2)}) as server:  # slow enough to be caught
        command = cli(
            "run", *envs, "--llm", f"openai:{MODEL}", "--openai-base-url", server.base_url,
            "--categories", "satisfy,best_action", "--budget", "3", "--concurrency", "1",
            "--db", str(db),
        )  # fmt: skip
        _kill_once_answered(command, db)
        with sqlite3.connect(db) as connection:
            statuses = dict(connection.execute("SELECT environment, status FROM campaigns"))
        assert set(statuses) == {"frozen_lake", "water_jug", "dam"}
        assert statuses["dam"] == "incomplete"  # planned, never begun
        resumed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    with sqlite3.connect(db) as connection:
        statuses = dict(connection.execute("SELECT environment, status FROM campaigns"))
    assert set(statuses.values()) == {"finished"}


def _kill_once_answered(command: list[str], db) -> None:
    """Start ``command`` and SIGKILL it once its first answer is stored."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 600
        while not (db.exists() and environments_stored(db) >= 1):
            assert process.poll() is None, process.communicate()
            if time.monotonic() > deadline:  # a guard against a hang, not a speed figure
                pytest.fail("the study never stored its first answer")
            time.sleep(0.005)
        process.kill()
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

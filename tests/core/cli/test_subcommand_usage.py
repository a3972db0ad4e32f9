"""A wrong option is one line that names the sub-command and where its options are listed;
``regrade`` takes its database either as ``regrade DB`` or as ``--db DB`` like every other
command."""

from __future__ import annotations

import pytest

from explaincheck.core.cli.main import main


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "r.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "random", "--budget", "2"]
    assert main([*args, "--categories", "satisfy", "--db", str(path)]) == 0
    return path


@pytest.mark.parametrize("command", ["results", "report", "regrade", "oracle"])
def test_a_wrong_option_is_one_line_naming_the_sub_command(command, capsys):
    with pytest.raises(SystemExit) as raised:
        main([command, "--no-such-option"])
    err = capsys.readouterr().err
    assert raised.value.code == 2
    assert err.count("\n") == 1 and "usage:" not in err
    assert err.startswith(f"explaincheck {command}: ")
    assert "unknown option --no-such-option" in err or "required" in err
    assert f"'explaincheck {command} --help' lists" in err


@pytest.mark.parametrize("form", [["DB"], ["--db", "DB"], ["DB", "--db", "DB"]])
def test_regrade_takes_the_database_either_way(form, db, capsys):
    capsys.readouterr()
    argv = ["regrade", *[str(db) if a == "DB" else a for a in form], "--satisfy-rule", "half"]
    assert main(argv) == 0
    assert "stored replies graded again under the half rule" in capsys.readouterr().out


def test_regrade_refuses_none_or_two_databases(db, tmp_path, capsys):
    assert main(["regrade"]) == 2
    assert "which database? regrade DB or regrade --db DB" in capsys.readouterr().err
    assert main(["regrade", str(db), "--db", str(tmp_path / "other.sqlite")]) == 2
    assert "two databases given" in capsys.readouterr().err

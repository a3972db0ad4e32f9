"""``run`` refusals leave nothing behind and name the real cause: no empty results file for a
refused model or a mistyped LLM, and a device given as --db is named as such."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from explaincheck.core.cli.main import main

MODELS = Path(__file__).parents[2] / "models"


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if not line.startswith("  ")]
    return lines[-1]


@pytest.mark.parametrize(
    ("env", "llm", "words"),
    [
        (str(MODELS / "ill_formed" / "sum_high.prism"), "random", "sum to 9/5"),
        ("frozen_lake", "local:nosuch", "unknown local model 'nosuch'"),
        ("frozen_lake", "ollama:gemma3:1b@http://127.0.0.1:9", "no Ollama server answers"),
    ],
    ids=["ill-formed model", "unknown local model", "no server"],
)
def test_a_refused_run_leaves_no_empty_database(tmp_path, capsys, env, llm, words):
    db = tmp_path / "new.sqlite"
    assert main(["run", "--env", env, "--llm", llm, "--budget", "1", "--db", str(db)]) == 2
    assert words in _one_line(capsys)
    assert list(tmp_path.iterdir()) == []  # no file, no -wal, no -shm


def test_a_refused_run_keeps_an_existing_database(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    base = ["run", "--env", "frozen_lake", "--budget", "1", "--categories", "satisfy"]
    assert main([*base, "--llm", "random", "--db", str(db)]) == 0
    assert main([*base, "--llm", "local:nosuch", "--db", str(db)]) == 2
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM executions").fetchone()[0] > 0


def test_a_device_as_database_is_named_as_such(capsys):
    assert main(["run", "--env", "frozen_lake", "--llm", "random", "--db", "/dev/null"]) == 2
    line = _one_line(capsys)
    assert "not a regular file" in line and "rollback" not in line


def test_a_corrupt_campaigns_table_is_one_line(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    base = ["run", "--env", "frozen_lake", "--budget", "1", "--categories", "satisfy"]
    assert main([*base, "--llm", "random", "--db", str(db)]) == 0
    with sqlite3.connect(db) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = connection.execute("PRAGMA page_size").fetchone()[0]
        root = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'campaigns'"
        ).fetchone()[0]
    with db.open("r+b") as stream:  # damage the campaigns table's page
        stream.seek((root - 1) * size)
        stream.write(b"\xff" * size)
    assert main([*base, "--llm", "random", "--db", str(db)]) == 2
    assert "is damaged" in _one_line(capsys)


def test_run_takes_a_state_limit(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "random", "--budget", "1", "--db", str(db)]
    assert main([*args, "--state-limit", "5"]) == 2
    line = _one_line(capsys)
    assert "more than the limit of 5" in line and "--state-limit of oracle or run" in line
    assert not db.exists()
    assert main([*args, "--categories", "satisfy", "--state-limit", "100000"]) == 0

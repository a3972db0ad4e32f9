"""``explaincheck run`` / ``results`` end to end on frozen_lake: the oracle answerer passes every
case, every planned execution is stored, a killed run resumes to exactly the planned number."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.campaign.plan import Campaign, plan_campaign, resolve_categories
from explaincheck.core.cli.main import main
from explaincheck.core.store import RESULT_COLUMNS

COMMAND = "--env frozen_lake --llm oracle --llm random --budget 20 --selection both"
MUST_SHOW = COMMAND.split(" ")


def count(db) -> tuple[int, int]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT COUNT(*), COUNT(DISTINCT exec_key) FROM executions"
        ).fetchone()


def planned(db) -> int:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT planned FROM campaigns").fetchone()[0]


def test_oracle_passes_everything_and_every_planned_execution_is_stored(tmp_path, capsys):
    db = tmp_path / "F.sqlite"
    assert main(["run", *MUST_SHOW, "--db", str(db)]) == 0
    # Every category applies on frozen_lake; factors runs only when asked for by id, the
    # policy categories only with a policy (tests/core/policy/test_run_report.py).
    every = tuple(
        c for c in resolve_categories("all") if c != "factors" and not c.startswith("policy_")
    )
    plan = plan_campaign(Campaign("frozen_lake", ("oracle", "random"), every, 20, "both"))
    assert count(db) == (plan.total, plan.total) and planned(db) == plan.total
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == plan.total
    assert all(set(RESULT_COLUMNS) <= set(row) for row in rows)
    oracle_rows = [r for r in rows if r["llm"] == "oracle"]
    assert oracle_rows and all(r["verdict"] == "pass" for r in oracle_rows)
    assert {r["selection"] for r in rows} == {"prioritized", "random"}
    assert {r["category"] for r in rows} == set(every)

    # The same command again: nothing to do, nothing duplicated.
    assert main(["run", *MUST_SHOW, "--db", str(db)]) == 0
    assert count(db) == (plan.total, plan.total)


def test_results_filters_and_errors(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    assert (
        main(
            [
                "run",
                "--env",
                "frozen_lake",
                "--llm",
                "random",
                "--budget",
                "3",
                "--categories",
                "satisfy,ranking",
                "--db",
                str(db),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json", "--category", "ranking"]) == 0
    assert {r["category"] for r in json.loads(capsys.readouterr().out)} == {"ranking"}
    assert main(["results", "--db", str(db), "--json", "--verdict", "fail"]) == 0
    assert {r["verdict"] for r in json.loads(capsys.readouterr().out)} <= {"fail"}
    assert main(["results", "--db", str(db)]) == 0
    assert "executions:" in capsys.readouterr().out
    assert main(["results", "--db", str(tmp_path / "none.sqlite")]) == 2
    assert "no results database" in capsys.readouterr().err
    assert main(["results", "--db", str(db), "--category", "nope"]) == 2
    assert main(["run", "--env", "frozen_lake", "--llm", "gpt", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "unknown LLM 'gpt'" in err and "Traceback" not in err


def test_missing_ollama_model_fails_up_front(tmp_path, capsys):
    with StandinOllama({"gemma3:1b": Script()}) as server:
        code = main(
            [
                "run",
                "--env",
                "frozen_lake",
                "--llm",
                "ollama:qwen3:8b",
                "--budget",
                "1",
                "--ollama-host",
                server.url,
                "--db",
                str(tmp_path / "r.sqlite"),
            ]
        )
    assert code == 2
    err = capsys.readouterr().err
    assert f"model qwen3:8b not found on {server.url}: run `ollama pull qwen3:8b`" in err


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "explaincheck.core.cli.main", *args]


def wait_for_rows(db, at_least: int, process: subprocess.Popen, limit: float = 60) -> int:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert process.poll() is None, "the run ended before it could be interrupted"
        if db.exists():
            try:
                done = count(db)[0]
            except sqlite3.OperationalError:
                done = 0
            if done >= at_least:
                return done
        time.sleep(0.02)
    raise AssertionError("no progress")


@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_killed_or_interrupted_run_resumes_to_exactly_the_plan(tmp_path, how):
    db = tmp_path / "k.sqlite"
    with StandinOllama({"gemma3:1b": Script(delay=0.05)}) as server:
        command = cli(
            "run",
            "--env",
            "frozen_lake",
            "--llm",
            "ollama:gemma3:1b",
            "--budget",
            "4",
            "--ollama-host",
            server.url,
            "--concurrency",
            "2",
            "--db",
            str(db),
        )
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_for_rows(db, 8, process)
        process.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
        _, err = process.communicate(timeout=60)
        if how == "kill":
            assert process.returncode == -signal.SIGKILL
        else:
            assert process.returncode == 130
            assert b"run the same command again to continue" in err
            assert b"Traceback" not in err
        total = planned(db)
        done, distinct = count(db)
        assert 8 <= done == distinct < total
        sent_before = len(server.chats())

        finished = subprocess.run(command, capture_output=True, timeout=120, env=os.environ)
        assert finished.returncode == 0, finished.stderr.decode()
        assert count(db) == (total, total)
        assert b"resuming: " in finished.stderr
        # Only what was not stored was asked again (plus what was in flight when it stopped).
        assert len(server.chats()) <= total + 2
        assert len(server.chats()) - sent_before <= total - done + 2

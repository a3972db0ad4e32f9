"""``explaincheck run`` under hostile conditions: bad input is one clear line with exit status 2,
tokens in URLs are never stored or printed, server texts cannot drive the terminal, SIGTERM
stops cleanly with 143, and the grading and validation options behave."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.cli.main import main

BASE = ["run", "--env", "frozen_lake", "--budget", "1", "--categories", "satisfy,best_action"]


def run_cli(tmp_path, *extra: str) -> int:
    """``BASE`` with ``extra``; a ``--budget`` in ``extra`` replaces BASE's (given twice, an
    option that takes one value is refused)."""
    base = BASE
    if "--budget" in extra:
        at = BASE.index("--budget")
        base = BASE[:at] + BASE[at + 2 :]
    return main([*base, "--db", str(tmp_path / "r.sqlite"), *extra])


def one_clear_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(
    "extra",
    [
        ["--llm", "ollama:x@http://[::1"],
        ["--llm", "ollama:x@http://127.0.0.1:99999"],
        ["--llm", "ollama:x@http://127.0.0.1:abc"],
        ["--llm", "ollama:x", "--ollama-host", "::::"],
        ["--llm", "ollama:x", "--ollama-host", "ftp://h"],
        ["--llm", "random", "--timeout", "nan"],
        ["--llm", "random", "--timeout", "-1"],
        ["--llm", "random", "--timeout", "0"],
        ["--llm", "random", "--timeout", "inf"],
        ["--llm", "random", "--satisfy-tolerance", "2"],
        ["--llm", "random", "--satisfy-tolerance", "nan"],
        ["--llm", "random", "--retries", "-1"],
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(tmp_path, capsys, extra):
    assert run_cli(tmp_path, *extra) == 2
    line = one_clear_line(capsys)
    assert line.startswith("explaincheck")
    assert not (tmp_path / "r.sqlite").exists()  # refused before anything was written


def test_a_spec_with_spaces_is_the_same_series(tmp_path, capsys):
    assert run_cli(tmp_path, "--llm", "random", "--llm", " random ") == 0
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        assert db.execute("SELECT DISTINCT llm FROM executions").fetchall() == [("random",)]
        settings = db.execute("SELECT settings FROM campaigns").fetchone()[0]
    assert '"llms":["random"]' in settings


def test_satisfy_rule_and_tolerance_reach_the_grading(tmp_path, capsys):
    assert run_cli(tmp_path, "--llm", "random", "--satisfy-rule", "half") == 0
    assert run_cli(tmp_path, "--llm", "oracle", "--satisfy-tolerance", "0.2") == 0
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        grading = dict(db.execute("SELECT llm, grading FROM executions").fetchall())
    assert grading["random"] == '{"satisfy_rule":"half","satisfy_tolerance":0.05}'
    assert grading["oracle"] == '{"satisfy_rule":"absolute","satisfy_tolerance":0.2}'


def test_tokens_in_host_urls_are_never_stored_or_printed(tmp_path, capsys):
    with StandinOllama({"gemma3:1b": Script()}) as server:
        code = run_cli(
            tmp_path,
            "--llm",
            f"ollama:gemma3:1b@{server.url}/?token=SECRET1#frag",
            "--llm",
            "ollama:gemma3:1b",
            "--ollama-host",
            f"{server.url}?token=SECRET2",
        )
    assert code == 0
    out = capsys.readouterr()
    assert "SECRET" not in out.out + out.err
    for path in tmp_path.iterdir():
        assert b"SECRET" not in path.read_bytes(), path.name
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        llms = {r[0] for r in db.execute("SELECT DISTINCT llm FROM executions")}
    assert llms == {f"ollama:gemma3:1b@{server.url}/", "ollama:gemma3:1b"}


def test_server_error_texts_cannot_drive_the_terminal(tmp_path, capsys):
    hostile = "boom \x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil\x1b]8;;http://x\x1b\\link"
    script = Script(mode="http500", error_text=hostile)
    with StandinOllama({"gemma3:1b": script}) as server:
        code = run_cli(
            tmp_path, "--llm", "ollama:gemma3:1b", "--ollama-host", server.url, "--retries", "0"
        )
    assert code == 1
    out = capsys.readouterr()
    printed = out.out + out.err
    assert "boom" in printed and "\\x1b]0;pwned" in printed  # shown, escaped
    for raw in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert raw not in printed


def test_sigterm_stores_what_finished_and_exits_143(tmp_path):
    db = tmp_path / "t.sqlite"
    with StandinOllama({"gemma3:1b": Script(delay=0.2)}) as server:
        command = [
            sys.executable,
            "-m",
            "explaincheck.core.cli.main",
            *BASE[:3],
            "--budget",
            "6",
            "--llm",
            "ollama:gemma3:1b",
            "--ollama-host",
            server.url,
            "--concurrency",
            "1",
            "--db",
            str(db),
        ]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        while len(server.chats()) < 3:
            assert process.poll() is None
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err.decode()
    assert b"Traceback" not in err and b"terminated;" in err
    with sqlite3.connect(db) as connection:
        stored = connection.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
        status = connection.execute("SELECT status FROM campaigns").fetchone()[0]
    assert stored >= 2 and status == "cancelled"


def test_random_answerer_draws_afresh_for_each_repeat(tmp_path, capsys):
    assert run_cli(tmp_path, "--llm", "random", "--repeat", "3", "--budget", "4") == 0
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        rows = db.execute("SELECT case_key, repeat, reply FROM executions").fetchall()
    replies: dict[str, set[str]] = {}
    for case, _, reply in rows:
        replies.setdefault(case, set()).add(reply)
    assert len(rows) == 3 * len(replies)
    assert sum(len(seen) > 1 for seen in replies.values()) >= len(replies) // 2


def test_a_resumed_campaign_with_another_satisfy_rule_is_regraded(tmp_path, capsys):
    assert run_cli(tmp_path, "--llm", "random", "--budget", "3") == 0
    capsys.readouterr()
    assert run_cli(tmp_path, "--llm", "random", "--budget", "3", "--satisfy-rule", "half") == 0
    assert "re-graded under the new satisfy settings" in capsys.readouterr().err
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        gradings = {r[0] for r in db.execute("SELECT grading FROM executions")}
        campaigns = db.execute("SELECT COUNT(*) FROM campaigns").fetchone()[0]
    assert gradings == {'{"satisfy_rule":"half","satisfy_tolerance":0.05}'}
    assert campaigns == 1  # the same campaign, resumed

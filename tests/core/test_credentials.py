"""Configured secrets never reach a stored or printed text, even when a server echoes them."""

from __future__ import annotations

import sqlite3

from support.ollama_standin import Script, StandinOllama

from explaincheck.core import credentials
from explaincheck.core.cli.main import main
from explaincheck.core.store import storable_text
from explaincheck.core.terminal_text import safe_terminal

KEY = "sk-live-0123456789abcdef"


def test_every_registered_secret_is_redacted(monkeypatch):
    monkeypatch.setenv("OLLAMA_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-9876543210")
    monkeypatch.setenv("EXAMPLE_KEY", "example-secret-value")
    monkeypatch.setattr(credentials, "_VARIABLES", list(credentials._VARIABLES))
    credentials.register_variable("EXAMPLE_KEY")  # a later backend registers its own key
    text = f"401: Bearer {KEY}; sk-openai-9876543210; example-secret-value; {KEY[:6]}"
    for shown in (credentials.redact(text), storable_text(text), safe_terminal(text)):
        assert KEY not in shown and "sk-openai" not in shown and "example-secret" not in shown
        assert "[OLLAMA_API_KEY redacted]" in shown and "[EXAMPLE_KEY redacted]" in shown
        assert shown.endswith(KEY[:6])  # only whole keys are secrets


def test_a_url_encoded_key_is_redacted_too(monkeypatch):
    monkeypatch.setenv("OLLAMA_API_KEY", "key/with+odd=chars")
    assert "odd" not in credentials.redact("token=key%2Fwith%2Bodd%3Dchars")


def test_an_echoed_bearer_token_is_neither_stored_nor_printed(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_API_KEY", KEY)
    echo = Script(mode="http500", error_text=f"upstream refused Authorization: Bearer {KEY}")
    db = tmp_path / "r.sqlite"
    with StandinOllama({"gemma3:1b": echo}) as server:
        main(
            [
                "run", "--env", "frozen_lake", "--budget", "1", "--categories", "satisfy",
                "--llm", "ollama:gemma3:1b", "--ollama-host", server.url, "--retries", "0",
                "--db", str(db),
            ]
        )  # fmt: skip
        sent = [
            {k.lower(): v for k, v in r["headers"].items()}.get("authorization")
            for r in server.requests
            if r["path"] == "/api/chat"
        ]
    out, err = capsys.readouterr()
    assert sent and all(header == f"Bearer {KEY}" for header in sent)  # the key was used
    assert KEY not in out and KEY not in err
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT reason, error FROM executions").fetchall()
        dump = "\n".join(connection.iterdump())
    assert rows and all("[OLLAMA_API_KEY redacted]" in reason for reason, _ in rows)
    assert KEY not in dump

"""Keys and URLs through every door (issue 34 points 6 and 7), over real HTTP with the official
``openai`` client against the stand-in server: a per-host key echoed back is redacted from the
reply, the thinking and the error (stored and printed); a URL whose password holds an "@" is
refused in one line (exit 2) wherever a URL is given, and nothing is stored."""

from __future__ import annotations

import sqlite3

import pytest
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.backends.ollama_hosts import redact_url
from explaincheck.core.backends.openai_backend import key_variable
from explaincheck.core.cli.main import main

KEY = "sk-HOSTKEY9zz"
RUN = ["run", "--env", "frozen_lake", "--categories", "satisfy", "--budget", "1"]


def test_a_per_host_key_echoed_back_is_never_stored_or_printed(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    models = {"echo": Script(mode="echo_key"), "broken": Script(mode="echo_key_error")}
    db = tmp_path / "r.sqlite"
    with StandinOpenAI(models) as server:
        monkeypatch.setenv(key_variable(server.base_url), KEY)
        args = [*RUN, "--llm", "openai:echo", "--llm", "openai:broken", "--retries", "0"]
        code = main([*args, "--openai-base-url", server.base_url, "--db", str(db)])
        sent = {r["headers"].get("authorization") for r in server.requests if r["body"]}
    assert sent == {f"Bearer {KEY}"}  # the key was used ...
    out = capsys.readouterr()
    assert code in (0, 1)
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT llm, reply, thinking, error, reason FROM executions")
        stored = {
            llm: (reply, thinking, error, reason) for llm, reply, thinking, error, reason in rows
        }
    reply, thinking, _, _ = stored["openai:echo"]
    assert "your key is [" in reply and "redacted]" in thinking  # ... and it came back
    _, _, error, reason = stored["openai:broken"]
    assert "bad key [" in (error or "") + reason
    assert KEY not in out.out + out.err
    for path in tmp_path.iterdir():
        assert KEY.encode() not in path.read_bytes(), path.name


AT_PASSWORD = "http://bob:pa@ssKEY@127.0.0.1:9/v1"


@pytest.mark.parametrize(
    "given",
    [
        ["--llm", "openai:m", "--openai-base-url", AT_PASSWORD],
        ["--llm", "ollama:m", "--ollama-host", AT_PASSWORD.removesuffix("/v1")],
        ["--llm", f"openai:m@{AT_PASSWORD}"],
        ["--llm", "random", "--ollama-host", "http://bob:pa/ssKEY@127.0.0.1:9"],
    ],
)
def test_a_url_with_an_at_in_its_password_is_refused_in_one_line(tmp_path, capsys, given):
    db = tmp_path / "r.sqlite"
    assert main([*RUN, *given, "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "ssKEY" not in err
    assert "user name or key" in err or "credentials" in err
    assert not db.exists()


def test_a_campaign_file_with_such_a_url_is_refused(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text(
        'env = "frozen_lake"\nllm = ["openai:m"]\n'
        f'openai-base-url = ["{AT_PASSWORD}"]\ndb = "{tmp_path / "r.sqlite"}"\n'
    )
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "ssKEY" not in err
    assert not (tmp_path / "r.sqlite").exists()


@pytest.mark.parametrize(
    "url", [AT_PASSWORD, "http://bob:pa/ss@KEY@h/v1", "bob:pa@ssKEY@h:8000", "//u:p@w@KEY@h"]
)
def test_redacting_takes_the_whole_userinfo(url):
    shown = redact_url(url)
    assert "KEY" not in shown and "@" not in shown


def test_openai_server_failures_name_the_kind_of_server(tmp_path, capsys, caplog, monkeypatch):
    """Issue 34 point 15: never "Ollama host" for an OpenAI-compatible server."""
    import logging

    logged: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("explaincheck").addHandler(handler)
    try:
        with StandinOpenAI({"m": Script(mode="http500")}) as server:
            args = [*RUN, "--llm", "openai:m", "--retries", "0"]
            args += ["--openai-base-url", server.base_url]
            assert main([*args, "--db", str(tmp_path / "a.sqlite")]) == 1
    finally:
        logging.getLogger("explaincheck").removeHandler(handler)
    err = capsys.readouterr().err + "\n".join(logged)  # the host's failure is a logged warning
    assert "Ollama host" not in err  # the failure's own words: ollama_hosts' log, said below
    closed = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
    args = [*RUN, "--llm", "openai:m", "--openai-base-url", closed, "--timeout", "2"]
    assert main([*args, "--db", str(tmp_path / "b.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "Ollama" not in err, err
    assert any("OpenAI-compatible server" in line for line in err.splitlines()), err

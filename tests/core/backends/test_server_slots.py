"""What ``--timeout`` covers, said where it bites (issue 34 point 18), over real HTTP with the
official client against the stand-in server: a server that reports fewer slots than
``--concurrency`` (llama-server's ``/props``) gets a warning before any work, and a run where
most requests time out says so and why."""

from __future__ import annotations

from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.backends.server_slots import server_root, slots_warning
from explaincheck.core.cli.main import main

RUN = ["run", "--env", "frozen_lake", "--llm", "openai:m", "--categories", "satisfy"]


def test_more_requests_than_the_server_has_slots_are_warned_about(tmp_path, capsys):
    with StandinOpenAI({"m": Script()}) as server:
        server.slots = 2
        args = [*RUN, "--budget", "1", "--openai-base-url", server.base_url]
        assert main([*args, "--concurrency", "4", "--db", str(tmp_path / "a.sqlite")]) == 0
        err = capsys.readouterr().err
        assert f"{server.base_url} reports 2 slots but --concurrency is 4" in err
        assert "--timeout (120 s) counts that wait" in err
        assert main([*args, "--concurrency", "2", "--db", str(tmp_path / "b.sqlite")]) == 0
        assert "slots" not in capsys.readouterr().err  # within its slots: nothing to say


def test_most_requests_timing_out_is_said_with_the_reason(tmp_path, capsys):
    with StandinOpenAI({"m": Script(delay=1.5)}) as server:
        args = [*RUN, "--budget", "4", "--openai-base-url", server.base_url, "--retries", "0"]
        code = main([*args, "--timeout", "0.5", "--db", str(tmp_path / "r.sqlite")])
    err = capsys.readouterr().err
    assert code == 1
    assert "4 of 4 requests to" in err and "timed out after 0.5 s" in err
    assert "waits in the server's queue" in err


def test_the_root_and_the_words():
    assert server_root("http://gpu1:8080/v1") == "http://gpu1:8080"
    assert server_root("https://h/proxy/v1/") == "https://h/proxy"
    assert slots_warning("u", 4, 4, 120) is None
    assert "1 slot but" in str(slots_warning("u", 1, 3, 60))

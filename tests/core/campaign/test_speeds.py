"""Speeds measured on this machine are kept between runs (a running mean per LLM) and read back
for the next estimate; cached replies, errors and instant answerers add nothing."""

from __future__ import annotations

import json

import pytest

from explaincheck.core.campaign.speeds import add_measurements, measured_speeds


def test_measurements_are_folded_into_a_running_mean(tmp_path):
    path = tmp_path / "speeds.json"
    assert measured_speeds(path) == {}  # nothing yet: the estimate is a guess
    add_measurements({"local:a": [2.0, 4.0]}, path)
    assert measured_speeds(path) == {"local:a": 3.0}
    add_measurements({"local:a": [9.0], "ollama:m": [1.0, float("nan"), -1.0]}, path)
    assert measured_speeds(path) == pytest.approx({"local:a": 5.0, "ollama:m": 1.0})
    assert json.loads(path.read_text())["local:a"]["answers"] == 3


def test_an_unreadable_file_is_no_measurement(tmp_path):
    path = tmp_path / "speeds.json"
    path.write_text("{not json")
    assert measured_speeds(path) == {}
    path.write_text(json.dumps({"x": {"seconds": "fast", "answers": 2}, "y": [1]}))
    assert measured_speeds(path) == {}


def test_a_run_keeps_the_speed_of_its_generated_replies(tmp_path, monkeypatch):
    from support.openai_standin import Script, StandinOpenAI

    from explaincheck.core.cli.main import main

    monkeypatch.setenv("EXPLAINCHECK_CACHE", str(tmp_path / "cache"))
    db = str(tmp_path / "r.sqlite")
    with StandinOpenAI({"m": Script(delay=0.2)}) as server:
        args = ["run", "--env", "frozen_lake", "--llm", "random", "--llm", "openai:m"]
        more = ["--openai-base-url", server.base_url, "--categories", "satisfy", "--budget", "2"]
        assert main([*args, *more, "--db", db]) == 0
        first = measured_speeds()
        assert set(first) == {"openai:m"} and first["openai:m"] >= 0.2  # random: none kept
        assert main([*args, *more, "--db", db]) == 0  # all stored: nothing new generated
    assert measured_speeds() == first

"""``explaincheck envs``: every environment folder with oracle-computed facts."""

from __future__ import annotations

import json

from support.environment_expectations import expected

from explaincheck.core.cli.main import main
from explaincheck.core.environments.registry import BUILTIN_IDS


def test_envs_json_lists_all_seven(capsys):
    assert main(["envs", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == list(BUILTIN_IDS)
    for r in rows:
        assert r["bottlenecks"] == expected(r["id"]).bottlenecks
        assert r["dead_ends"] > 0 and 0 < r["V0"] < 1
        served = set(r["categories"])
        assert {"satisfy", "best_action", "ranking", "more_promising", "safer"} <= served
        assert ("bottleneck" in served) == (r["bottlenecks"] > 0)


def test_envs_table(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["envs"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["id", "title", "states"]
    for env_id in BUILTIN_IDS:
        assert env_id in out


def test_envs_fits_80_columns_and_calls_opt_in_on_request(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["envs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 80
    assert lines[0].split()[:2] == ["id", "states"]  # the title is dropped first
    text = " ".join(" ".join(lines).split())  # wrapped notes read as one (indents too)
    assert "* factors: on request only, in every environment (--categories factors)" in text
    assert "not applicable" not in text
    assert text.count("every run ends in the goal or in an unsafe state") == 1  # said once

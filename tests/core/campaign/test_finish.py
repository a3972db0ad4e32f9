"""Finishing a run (core/campaign/finish.py), as ``run`` and ``regrade`` use it: the campaign
record names the satisfy rule its rows are graded under after a resume with another rule or a
re-grade, and the behavioural probes store a hostile reply through the store, cleaned like the
runner's."""

from __future__ import annotations

import json
import sqlite3

from support.ollama_standin import Script, StandinOllama, schema_answer

from explaincheck.core.analysis.facts import campaign_facts
from explaincheck.core.cli.main import main
from explaincheck.core.store import Store

RUN = ["run", "--env", "frozen_lake", "--llm", "random", "--categories", "satisfy"]


def recorded(db) -> tuple[dict, str]:
    """The grading in the campaign record, and the rule its facts print."""
    with Store.open(db, create=False) as store:
        (campaign,) = store.campaigns()
        graded = {tuple(sorted(r["grading"].items())) for r in store.iter_executions()}
    assert len(graded) == 1  # one rule over every row
    return campaign.settings["grading"], campaign_facts([campaign]).loc["satisfy rule"].iloc[0]


def test_a_resume_under_another_rule_is_recorded_in_the_campaign(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    assert main([*RUN, "--budget", "6", "--db", db]) == 0
    assert recorded(db)[1].startswith("absolute")
    assert main([*RUN, "--budget", "6", "--db", db, "--satisfy-rule", "half"]) == 0
    assert "6 stored executions re-graded" in capsys.readouterr().err  # run's words, unchanged
    grading, shown = recorded(db)
    assert grading == {"satisfy_rule": "half", "satisfy_tolerance": 0.05}
    assert shown == "half: p and V(s) on the same side of ½"


def test_regrade_is_recorded_in_the_campaign(tmp_path, capsys):
    db = str(tmp_path / "g.sqlite")
    assert main([*RUN, "--budget", "4", "--db", db]) == 0
    assert main(["regrade", db, "--satisfy-tolerance", "0.2"]) == 0
    grading, shown = recorded(db)
    assert grading == {"satisfy_rule": "absolute", "satisfy_tolerance": 0.2}
    assert shown == "absolute: |p − V(s)| ≤ 0.2"


def test_a_probe_reply_with_a_lone_surrogate_is_stored_cleaned(tmp_path, capsys):
    db = tmp_path / "b.sqlite"
    answer = lambda request: json.dumps(schema_answer(request["format"])) + " \ud800 tail"  # noqa: E731
    args = ["run", "--env", "frozen_lake", "--llm", "ollama:gemma3:1b", "--categories", "factors"]
    with StandinOllama({"gemma3:1b": Script()}, answer=answer) as server:
        given = [*args, "--ollama-host", server.url, "--budget", "1", "--db", str(db)]
        assert main([*given, "--behavioural", "--retries", "0"]) == 0
        asked = len(server.chats())
    assert "behavioural check of 1 factors executions stored" in capsys.readouterr().out
    with sqlite3.connect(db) as connection:
        replies = [r[0] for r in connection.execute("SELECT reply FROM factor_behaviour")]
        (stored,) = [r[0] for r in connection.execute("SELECT reply FROM executions")]
    assert asked == 1 + len(replies) and len(replies) > 3  # the case, then every probe trial
    assert all(r.endswith("\ufffd tail") for r in replies)
    assert stored.endswith("\ufffd tail")  # as the runner stores the same reply


def test_the_factor_summary_only_reads(tmp_path, capsys):
    """Without ``--behavioural`` there is no probe table, and reading the summary makes none."""
    from explaincheck.core.analysis.factor_report import summary

    db = tmp_path / "f.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "oracle", "--categories", "factors"]
    assert main([*args, "--budget", "1", "--db", str(db)]) == 0
    assert summary(str(db))["frozen_lake / oracle"]["cases"] == 1
    with sqlite3.connect(db) as connection:
        tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
    assert "factor_behaviour" not in tables

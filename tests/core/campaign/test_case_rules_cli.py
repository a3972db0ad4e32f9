"""The selection rules end to end (docs/method.md §4): reading cases stored and reported,
degenerate categories warned, --keep-do-nothing, --min-gap and --balance on the command line."""

from __future__ import annotations

import re
from pathlib import Path

from support.cli_results import stored_results

from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.cli.main import main

MODELS = Path(__file__).resolve().parents[2] / "models"
CORRIDOR = ["--env", str(MODELS / "corridor.prism"), "--const", "TARGET=4"]


results = stored_results


def test_reading_cases_are_stored_warned_and_left_out_on_request(tmp_path, capsys):
    db = tmp_path / "c.sqlite"
    command = ["run", *CORRIDOR, "--llm", "random", "--categories", "all", "--db", str(db)]
    assert main(command) == 0
    err = capsys.readouterr().err
    # every more_promising pair holds the trap: one warning line per degenerate category
    assert "warning: more_promising measures nothing here: all 3 candidates have δ = 0" in err
    assert "(reading cases)" in err
    # one warning per degenerate category: satisfy, ranking, the pairs (and any other registered
    # category that measures nothing on the corridor), and no other warning
    warned = re.findall(r"warning: (\w+) measures nothing here", err)
    assert {"satisfy", "ranking", "more_promising", "safer"} <= set(warned)
    assert len(warned) == len(set(warned)) == err.count("warning:")
    rows = results(db, capsys)
    marks = {r["category"]: set() for r in rows}
    for row in rows:
        marks[row["category"]].add(row["reading"])
    assert marks["more_promising"] == {True} and marks["safer"] == {True}
    assert marks["best_action"] == {False} and marks["bottleneck"] == {False}
    assert all(row["delta"] <= 0.5 for row in rows if row["reading"])
    out = tmp_path / "rep"
    assert main(["report", "--db", str(db), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Share of reading cases per cell" in text and "1.00" in text
    assert "Caveat — ‡ more_promising measures nothing" in " ".join(text.split())  # wrapped
    assert main(["report", "--db", str(db), "--out", str(out), "--exclude-reading"]) == 0
    text = capsys.readouterr().out
    assert "Reading cases are left out of every score." in " ".join(text.split())  # wrapped


def test_keep_do_nothing_offers_wait_and_the_oracle_may_name_it(tmp_path, capsys):
    db = tmp_path / "k.sqlite"
    base = ["run", *CORRIDOR, "--llm", "oracle", "--categories", "best_action"]
    assert main([*base, "--db", str(db)]) == 0
    plain = results(db, capsys)
    assert plain and all("wait" not in r["schema"]["properties"]["action"]["enum"] for r in plain)
    kept_db = tmp_path / "kept.sqlite"
    assert main([*base, "--keep-do-nothing", "--db", str(kept_db)]) == 0
    kept = results(kept_db, capsys)
    assert all("wait" in r["expected"]["action"] for r in kept)  # always among the best
    assert all(r["verdict"] == "pass" for r in kept)


def test_min_gap_and_balance_change_the_plan():
    paired = Campaign("stock_market", ("random",), ("more_promising", "ranking"), budget=20)
    tiny = [c for e in plan_campaign(paired).executions for c in [e.case] if c.gap < 0.01]
    assert tiny  # the paper's δ keeps differences no explainer can resolve
    gapped = plan_campaign(Campaign(**{**paired.__dict__, "min_gap": 0.01}))
    assert all(e.case.gap >= 0.01 for e in gapped.executions)
    balanced = plan_campaign(Campaign("frozen_lake", ("random",), ("bottleneck",), budget=20))
    assert balanced.cases[("bottleneck", "prioritized")] == 2  # one bottleneck: k = 1
    free = plan_campaign(
        Campaign("frozen_lake", ("random",), ("bottleneck",), budget=20, balance=False)
    )
    assert free.cases[("bottleneck", "prioritized")] == 14  # every candidate
    assert paired.identity("h") == Campaign(**{**paired.__dict__}).identity("h")
    assert gapped.campaign.identity("h") != paired.identity("h")


LEDGE = ["--env", str(MODELS / "ledge.prism")]  # every dead end a labelled, absorbing fall


def test_a_model_without_live_dead_ends_makes_subset_dead_end_a_reading_test(tmp_path, capsys):
    db = tmp_path / "ledge.sqlite"
    command = ["run", *LEDGE, "--llm", "random", "--categories", "subset_dead_end"]
    assert main([*command, "--selection", "both", "--db", str(db)]) == 0
    err = capsys.readouterr().err
    assert "warning: subset_dead_end measures nothing here: all 495 candidates have" in err
    rows = results(db, capsys)
    assert len(rows) == 40 and {r["positive"] for r in rows} == {True, False}
    assert all(r["reading"] for r in rows)  # negatives too: the label rule answers "no" rightly
    assert all(r["delta"] <= 0.5 for r in rows)


def test_transporter_asks_live_dead_ends_first():
    from explaincheck.core.taxonomy.case_rules import is_live_dead_end

    plan = plan_campaign(Campaign("transporter", ("random",), ("subset_dead_end",), budget=20))
    assert "subset_dead_end" not in plan.degenerate
    positives = [e.case for e in plan.executions if e.case.positive]
    assert len(positives) == 10
    for case in positives:  # only live dead ends: the label rule says "no", wrongly
        states = [plan.oracle.state(i) for i in case.states]
        assert any(is_live_dead_end(s) for s in states)
        assert not any(s.is_unsafe or (s.dead_end and not is_live_dead_end(s)) for s in states)
        assert not case.reading and case.delta == 1.0

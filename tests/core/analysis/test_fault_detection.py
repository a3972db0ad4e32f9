"""Fault-detection analysis: APFD on hand-made orders, the tables on a hand-made results frame,
and the whole pipeline (answers, report, CLI, stored runs) on tiny real models."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from explaincheck.core.analysis import fault_detection as fd
from explaincheck.core.analysis.report import MARKDOWN, build_report, render_markdown, write_report
from explaincheck.core.campaign import fault_runs as runs
from explaincheck.core.cli.main import main

MODELS = Path(__file__).resolve().parents[2] / "models"
SHORTCUT = str(MODELS / "shortcut.prism")


def test_apfd_on_hand_made_orders():
    assert runs.apfd([True, False, False, False]) == pytest.approx(1 - 1 / 4 + 1 / 8)  # 0.875
    assert runs.apfd([False, False, False, True]) == pytest.approx(1 - 4 / 4 + 1 / 8)  # 0.125
    assert runs.apfd([True, False, True, False]) == pytest.approx(1 - 4 / 8 + 1 / 8)  # 0.625
    assert runs.apfd([False, True, False, True]) == pytest.approx(1 - 6 / 8 + 1 / 8)  # 0.375
    assert math.isnan(runs.apfd([False, False])) and math.isnan(runs.apfd([]))


def test_apfd_of_the_delta_order_averages_over_its_ties():
    """δ 0.9, 0.9, 0.5, 0.2 with the failing cases at one of the two 0.9s and at 0.2: the tie
    puts the first at position 1 or 2 (1.5 on average), the other sits at 4: APFD =
    1 − 5.5/8 + 1/8 = 0.4375, the mean of the two tie orders' APFDs."""
    deltas, failing = [0.9, 0.2, 0.9, 0.5], [True, True, False, False]
    found = runs.apfd_by_delta(deltas, failing)
    assert found == pytest.approx(1 - 5.5 / 8 + 1 / 8)
    orders = [[True, False, False, True], [False, True, False, True]]
    assert found == pytest.approx(sum(runs.apfd(o) for o in orders) / 2)
    assert math.isnan(runs.apfd_by_delta([0.1, 0.2], [False, False]))


def test_random_expectation_is_the_mean_over_every_order():
    import itertools

    failing = [True, True, False, False, False]
    orders = set(itertools.permutations(failing))
    mean = sum(runs.apfd(list(o)) for o in orders) / len(orders)
    assert runs.apfd_random_expectation(5, 2) == pytest.approx(mean) == pytest.approx(0.5)
    assert math.isnan(runs.apfd_random_expectation(5, 0))


def test_pool_rows_of_a_yes_no_category_are_per_class():
    from explaincheck.core.taxonomy.base import TestCase

    cases = [
        TestCase("bottleneck", (i,), delta, "prioritized", i, positive)
        for i, (delta, positive) in enumerate(
            [(0.9, True), (0.1, True), (0.8, False), (0.7, False)]
        )
    ]
    rows = runs.pool_rows("flaw:distance", "toy", "bottleneck", cases, [False, True, True, False])
    by_class = {r["class"]: r for r in rows}
    assert set(by_class) == {"yes", "no"} and by_class["yes"]["pool"] == 2
    assert by_class["yes"]["apfd_prioritized"] == pytest.approx(1 - 2 / 2 + 1 / 4)  # last
    assert by_class["no"]["apfd_prioritized"] == pytest.approx(1 - 1 / 2 + 1 / 4)  # first
    assert by_class["no"]["apfd_random"] == 0.5


def test_equivalent_mutants_are_listed_apart_and_left_out():
    pools = pd.DataFrame(
        [
            {"llm": "flaw:danger-blind", "environment": "dam", "category": "safer", "pool": 9,
             "failing": 0},
            {"llm": "flaw:danger-blind", "environment": "dam", "category": "satisfy", "pool": 5,
             "failing": 0},
            {"llm": "flaw:danger-blind", "environment": "toy", "category": "safer", "pool": 4,
             "failing": 1},
            {"llm": "flaw:distance", "environment": "dam", "category": "safer", "pool": 9,
             "failing": 3},
        ]
    )  # fmt: skip
    mutants = fd.equivalent_mutants(pools)
    assert mutants.to_dict("records") == [
        {"llm": "flaw:danger-blind", "environment": "dam", "categories": 2, "cases": 14}
    ]
    kept = fd.without_mutants(pools, mutants)
    assert len(kept) == 2 and set(kept["environment"]) == {"toy", "dam"}


def _row(llm, category, selection, index, verdict, delta=0.5, positive=None, states=None):
    return {
        "environment": "toy",
        "llm": llm,
        "category": category,
        "selection": selection,
        "case_key": f"{category}/{selection}/{index}",
        "states": states or [index + (0 if selection == "prioritized" else 100)],
        "repeat": 0,
        "delta": delta,
        "positive": positive,
        "verdict": verdict,
        "schema": {"properties": {"action": {"type": "string", "enum": ["a", "b", "c", "d"]}}},
        "expected": {"action": ["a"]},
        "grading": None,
    }


def hand_made() -> pd.DataFrame:
    f = "flaw:distance"
    rows = [
        # satisfy: prioritised 2/2 fail, random 1/2 -> raises
        _row(f, "satisfy", "prioritized", 0, "fail"),
        _row(f, "satisfy", "prioritized", 1, "invalid"),  # invalid counts as failing
        _row(f, "satisfy", "random", 0, "fail"),
        _row(f, "satisfy", "random", 1, "pass"),
        # best action: nothing fails -> unchanged
        *(_row(f, "best_action", s, i, "pass") for s in ("prioritized", "random") for i in (0, 1)),
        # bottleneck: every positive fails, every negative passes, in both -> one class
        *(
            _row(f, "bottleneck", s, i, "fail" if i % 2 == 0 else "pass", positive=i % 2 == 0)
            for s in ("prioritized", "random")
            for i in range(4)
        ),
        # ranking: prioritised fails only its low-δ case, random fails both -> lowers
        _row(f, "ranking", "prioritized", 0, "fail", delta=0.1),
        _row(f, "ranking", "prioritized", 1, "pass", delta=0.9),
        _row(f, "ranking", "random", 0, "fail", delta=0.2),
        _row(f, "ranking", "random", 1, "fail", delta=0.3),
        # not a flawed explainer: left out
        _row("random", "satisfy", "prioritized", 0, "fail"),
    ]
    return pd.DataFrame(rows)


def test_fail_rates_and_rq1_with_ground_truth():
    rates = fd.fail_rates(hand_made()).set_index("category")
    assert set(rates["llm"]) == {"flaw:distance"}
    assert rates.loc["satisfy", ["prioritized", "random"]].tolist() == [1.0, 0.5]
    assert rates.loc["ranking", ["prioritized", "random"]].tolist() == [0.5, 1.0]
    assert rates.loc["bottleneck", "one_class"] and not rates.loc["satisfy", "one_class"]
    cells = fd.ground_truth_rq1(rates.reset_index()).set_index("category")
    assert cells["outcome"].to_dict() == {
        "satisfy": fd.RAISES,
        "bottleneck": fd.UNCHANGED,
        "best_action": fd.UNCHANGED,
        "ranking": fd.LOWERS,
    }
    assert cells.loc["satisfy", "why"] == ""
    assert cells.loc["best_action", "why"].startswith("no selected case fails")
    assert "exactly one class fails" in cells.loc["bottleneck", "why"]
    assert "low-δ cases (mean δ 0.20 failing vs 0.90 passing)" in cells.loc["ranking", "why"]
    counts = fd.rq1_counts(cells.reset_index())
    assert counts.loc["all"].to_dict() == {"raises": 1, "unchanged": 2, "lowers": 1, "cells": 4}
    by_category = fd.rq1_by_category(cells.reset_index())
    assert by_category.loc["ranking", "lowers"] == 1
    assert by_category.loc["ranking", "why δ does not help (cells)"].endswith("(1)")


def test_detection_matrix_pools_environments_per_selection():
    frame = pd.concat([hand_made(), hand_made().assign(environment="other")])
    frame.loc[(frame["environment"] == "other") & (frame["category"] == "satisfy"), "verdict"] = (
        "pass"
    )
    matrix = fd.detection_matrix(fd.fail_rates(frame))
    assert matrix.loc["flaw:distance", ("satisfy", "prioritized")] == pytest.approx(0.5)
    assert matrix.loc["flaw:distance", ("satisfy", "random")] == pytest.approx(0.25)
    assert list(dict.fromkeys(c for c, _ in matrix.columns)) == [
        "satisfy",
        "bottleneck",
        "best_action",
        "ranking",
    ]
    text = fd.detection_text(matrix)
    assert text.loc["flaw:distance", "satisfy"] == "0.50/0.25"


def test_calibration_against_q_plus_chance():
    rows = [
        _row(llm, "best_action", "prioritized", i, verdict)
        for llm, verdicts in (
            ("noisy:0", ["pass", "fail", "fail", "fail"]),
            ("noisy:1", ["pass"] * 4),
        )
        for i, verdict in enumerate(verdicts)
    ]
    table = fd.calibration(pd.DataFrame(rows))
    assert table.loc[0.0, "score"] == 0.25 and table.loc[0.0, "chance"] == 0.25
    assert table.loc[0.0, "expected"] == 0.25 and table.loc[1.0, "expected"] == 1.0
    assert fd.noisy_share("noisy:0.75") == 0.75 and fd.noisy_share("flaw:distance") is None


def test_apfd_table_means_over_cells_with_failures():
    pools = pd.DataFrame(
        [
            {"llm": "flaw:distance", "category": "satisfy", "pool": 4, "failing": 1,
             "apfd_prioritized": 0.875, "apfd_random": 0.375},
            {"llm": "flaw:distance", "category": "satisfy", "pool": 4, "failing": 2,
             "apfd_prioritized": 0.625, "apfd_random": 0.625},
            {"llm": "flaw:distance", "category": "ranking", "pool": 2, "failing": 0,
             "apfd_prioritized": math.nan, "apfd_random": math.nan},
        ]
    )  # fmt: skip
    table = fd.apfd_table(pools)
    assert table.loc["satisfy", "apfd_prioritized"] == pytest.approx(0.75)
    assert table.loc["satisfy", "gain"] == pytest.approx(0.25)
    assert table.loc["satisfy", "failing_share"] == pytest.approx(3 / 8)
    assert "ranking" not in table.index and table.loc["all", "cells"] == 2


def test_detect_faults_on_a_tiny_model(tmp_path):
    found = runs.detect_faults(
        [SHORTCUT], ("flaw:distance", "flaw:danger-blind"), budget=5, shares=(0.0, 1.0)
    )
    results = found.results
    assert set(results["verdict"]) <= {"pass", "fail"}
    noisy = results[results["llm"] == "noisy:1"]
    assert len(noisy) and (noisy["verdict"] == "pass").all()
    best = results[(results["llm"] == "flaw:distance") & (results["category"] == "best_action")]
    assert len(best) == 2 and (best["verdict"] == "fail").all()  # the risky shortcut, both times
    pool = found.pools.set_index(["llm", "category"])
    assert pool.loc[("flaw:distance", "best_action"), "apfd_random"] == 0.5
    assert pool.loc[("flaw:distance", "best_action"), "pool"] == 1
    assert pool.loc[("flaw:distance", "best_action"), "apfd_prioritized"] == pytest.approx(0.5)
    assert pool.loc[("flaw:danger-blind", "best_action"), "failing"] == 0
    report = fd.fault_report(found, ["shortcut"])
    keys = [s.key for s in report.sections]
    assert "fault_detection_apfd" in keys and "noisy_calibration" in keys
    assert set(report.figures) == {"detection_matrix", "noisy_calibration"}
    written = write_report(report, tmp_path, MARKDOWN)
    assert {p.name for p in written} >= {"report.md", "detection_matrix.png"}
    assert "APFD per category" in (tmp_path / "report.md").read_text()


def test_faults_command_and_report_of_stored_runs(tmp_path, capsys):
    out = tmp_path / "faults"
    code = main(
        ["faults", "--env", SHORTCUT, "--llm", "flaw:distance", "--budget", "4", "--out", str(out)]
    )
    assert (
        code == 0 and (out / "report.md").is_file() and (out / "fault_detection_apfd.csv").is_file()
    )
    assert "RQ1 with ground truth" in capsys.readouterr().out
    assert main(["faults", "--env", SHORTCUT, "--llm", "ollama:x", "--out", str(out)]) == 2
    assert "only flaw:" in capsys.readouterr().err
    db = tmp_path / "runs.sqlite"
    run = ["run", "--env", SHORTCUT, "--selection", "both", "--budget", "4", "--db", str(db)]
    for spec in ("flaw:distance", "noisy:0", "noisy:1"):
        run += ["--llm", spec]
    assert main(run) == 0
    from explaincheck.core.store import results_frame

    report = build_report(results_frame(db))
    text = render_markdown(report, {})
    assert "Fault detection" in text and "noisy:Q calibration" in text
    assert "detection_matrix" in report.figures


def test_faults_command_lists_equivalent_mutants_apart(tmp_path, capsys):
    """On the shortcut model D = 1 − V holds, so flaw:danger-blind fails no case of any pool:
    listed apart, and absent from the RQ1 and APFD tables; APFD's random column is ½."""
    out = tmp_path / "faults"
    args = ["faults", "--env", SHORTCUT, "--llm", "flaw:distance", "--llm", "flaw:danger-blind"]
    assert main([*args, "--budget", "4", "--out", str(out), "--no-calibration"]) == 0
    printed = capsys.readouterr().out
    assert "equivalent mutants" in printed
    mutants = pd.read_csv(out / "fault_detection_equivalent.csv")
    assert mutants["llm"].tolist() == ["flaw:danger-blind"]
    assert mutants["categories"].iat[0] >= 5 and mutants["cases"].iat[0] > 0
    rq1 = pd.read_csv(out / "fault_detection_rq1.csv")
    assert "flaw:danger-blind" not in set(rq1["explainer"])
    pools = pd.read_csv(out / "fault_detection_pools.csv")
    assert set(pools["llm"]) == {"flaw:distance"}
    assert set(pools["apfd_random"].dropna()) == {0.5}


def test_fault_detection_only_reads_and_does_not_import_the_report():
    """The runs live in campaign/fault_runs.py; the tables build their sections from
    report_parts, so report.py → fault_detection is one way (no circle)."""
    import ast

    source = Path(fd.__file__).read_text(encoding="utf-8")
    imported = {
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert "explaincheck.core.analysis.report" not in imported
    assert not any(m.startswith("explaincheck.core.backends") for m in imported)
    assert not hasattr(fd, "detect_faults") and not hasattr(fd, "selected_rows")

"""Stability over repeats (exact Clopper–Pearson rule) and Inspect-style pass@k / pass^k, with
values checked by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from explaincheck.core.analysis import stability as st


def test_clopper_pearson_bounds_are_the_exact_ones():
    # 5 of 5: the lower bound solves p^5 = 0.025, i.e. 0.025 ** (1/5)
    low, high = st.clopper_pearson(5, 5)
    assert low == pytest.approx(0.025 ** (1 / 5)) and high == 1.0
    low, high = st.clopper_pearson(0, 3)
    assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / 3))


@pytest.mark.parametrize(
    ("passes", "runs", "expected"),
    [
        (5, 5, "stable-pass"),
        (0, 5, "stable-fail"),
        (4, 5, "flaky"),
        (1, 5, "flaky"),
        (1, 2, "flaky"),
        (2, 2, "stable-pass"),
        (1, 1, None),  # one run: no stability
        (0, 0, None),
    ],
)
def test_stability_rule(passes, runs, expected):
    assert st.stability(passes, runs) == expected


def test_pass_at_k_and_pass_hat_k_by_hand():
    # n = 5, c = 2: pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10; pass^2 = C(2,2)/C(5,2) = 1/10
    assert st.pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert st.pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    assert st.pass_at_k(5, 2, 1) == pytest.approx(0.4) == st.pass_hat_k(5, 2, 1)
    assert st.pass_at_k(5, 2, 4) == 1.0  # n - c = 3 < 4: every draw of 4 holds a pass
    assert st.pass_hat_k(5, 4, 5) == 0.0
    assert math.isnan(st.pass_at_k(2, 1, 3)) and math.isnan(st.pass_hat_k(2, 1, 3))


def _rows(llm: str, case: str, verdicts: list[str], selection: str = "prioritized") -> list:
    return [
        {
            "environment": "frozen_lake",
            "llm": llm,
            "category": "satisfy",
            "selection": selection,
            "case_key": f"satisfy/{selection}/0/{case}",
            "states": [int(case)],
            "repeat": repeat,
            "verdict": verdict,
        }
        for repeat, verdict in enumerate(verdicts)
    ]


def test_case_runs_aggregate_selections_and_leave_errors_out():
    frame = pd.DataFrame(
        _rows("a", "3", ["pass", "pass", "error"])
        + _rows("a", "3", ["pass"], selection="random")  # the same question, other selection
        + _rows("a", "4", ["pass", "fail", "invalid"])
        + _rows("b", "3", ["fail", "fail"])
    )
    cases = st.case_runs(frame).set_index(["llm", "case"])
    assert cases.loc[("a", "satisfy/3"), ["runs", "passes", "stability"]].tolist() == [
        3,
        3,
        "stable-pass",
    ]
    assert cases.loc[("a", "satisfy/4"), "stability"] == "flaky"
    assert cases.loc[("b", "satisfy/3"), "stability"] == "stable-fail"
    assert st.flaky_keys(frame) == {("frozen_lake", "satisfy", "satisfy/4")}
    table = st.pass_k_table(frame)
    row = table.loc[("a", "satisfy")]
    # k = 3; case 3: 3/3, case 4: 1/3 -> pass@1 = (1 + 1/3)/2, pass@3 = 1, pass^3 = 1/2
    assert row["k"] == 3 and row["flaky"] == 0.5
    assert row["pass@1"] == pytest.approx(2 / 3)
    assert row["pass@k"] == 1.0 and row["pass^k"] == 0.5
    assert st.quarantine(frame)["states"].tolist() == [[4]]


def test_a_merged_version_is_not_an_independent_repeat():
    """Issue 52's leftover: a version ``merge --on-conflict keep-both-as-repeats`` kept beside
    repeat 0 (a second answer to its request, under repeat number 2) counted as a third repeat:
    k = 3, 3 runs, flaky, pass^k 0. Marked as a merged version, it is left out: k = 2."""
    from explaincheck.core.analysis.robustness import repeat_table
    from explaincheck.core.store.records import MERGED_VERSION_OF

    rows = _rows("a", "3", ["pass", "pass", "fail"])
    rows[2]["options"] = {"temperature": 0.7, "seed": 0, MERGED_VERSION_OF: 0}
    rows += _rows("a", "4", ["pass", "fail"])
    frame = pd.DataFrame(rows)
    frame["reply"] = '{"probability": 1}'
    frame["answer"] = None
    cases = st.case_runs(frame).set_index("case")
    assert cases.loc["satisfy/3", ["runs", "passes", "repeats", "stability"]].tolist() == [
        2,
        2,
        2,
        "stable-pass",
    ]
    row = st.pass_k_table(frame).loc[("a", "satisfy")]
    assert row["k"] == 2 and row["pass^k"] == 0.5 and row["flaky"] == 0.5  # case 4 is flaky
    assert st.quarantine(frame)["states"].tolist() == [[4]]
    assert repeat_table(frame).loc[("a", "satisfy"), "k"] == 2


def test_repeat_5_with_both_selections_has_one_k_in_every_table(tmp_path):
    """Issue 51.2: a question both selections drew has 10 runs; stability.csv then took k = 10
    for its cell while repeats.csv took k = 5 (noisy:0.5 best_action pass^k 0.0 in one table and
    0.182 in the other). k is the --repeat count in both, over the same cases."""
    from explaincheck.core.cli.main import main

    db, out = tmp_path / "r.sqlite", tmp_path / "report"
    run = "run --env frozen_lake --categories best_action,satisfy,more_promising --budget 6"
    run += " --repeat 5 --selection both --llm noisy:0.5"
    assert main([*run.split(), "--db", str(db)]) == 0
    assert main(["report", "--db", str(db), "--out", str(out), "--format", "csv"]) == 0
    stability = pd.read_csv(out / "stability.csv").set_index(["llm", "category"])
    repeats = pd.read_csv(out / "repeats.csv").set_index(["llm", "category"])
    assert set(stability["k"]) == set(repeats["k"]) == {5}
    assert list(stability.index) == list(repeats.index)
    assert stability["cases"].tolist() == repeats["cases"].tolist()
    for name in ("pass^k", "pass@k"):
        assert stability[name].to_numpy() == pytest.approx(repeats[name].to_numpy())
    assert (stability["pass^k"] <= stability["pass@1"] + 1e-12).all()
    assert (stability["pass@1"] <= stability["pass@k"] + 1e-12).all()
    runs = st.case_runs(_results(db))
    assert runs["runs"].max() == 10 and set(runs["repeats"]) == {5}  # both selections: 2 x 5


def _results(db) -> pd.DataFrame:
    from explaincheck.core import api

    return api.results(db, lean=True)

"""Wording spread, metamorphic consistency and repeat statistics on hand-made rows.

Keys follow ``TestCase.key``: ``...~w1`` is wording 1, ``...~m:swap`` a variant of the case
before the mark. Pair answers are letters of the row's schema enum, undone to state ids.
"""

from __future__ import annotations

import pandas as pd
import pytest
from analysis_data import FL, P, row

from explaincheck.core.analysis import robustness

PAIR_SCHEMA = {"properties": {"state": {"enum": ["K", "L"]}}}
RENAMED_SCHEMA = {"properties": {"state": {"enum": ["M", "N"]}}}


def pair(llm, key, states, letter, verdict, schema=PAIR_SCHEMA, repeat=0):
    return row(
        FL,
        llm,
        "more_promising",
        P,
        0,
        verdict,
        repeat,
        case_key=key,
        states=states,
        answer={"state": letter},
        schema=schema,
    )


def test_wording_spread_is_max_minus_min_of_the_wording_scores():
    rows = []
    for i, (w0, w1, w2) in enumerate([("pass", "pass", "fail"), ("pass", "fail", "fail")]):
        base = f"best_action/prioritized/{i}/{i}"
        for wording, verdict in enumerate((w0, w1, w2)):
            key = base if wording == 0 else f"{base}~w{wording}"
            rows.append(row(FL, "m", "best_action", P, i, verdict, case_key=key))
    # A metamorphic variant must not enter the wording scores.
    rows.append(
        row(FL, "m", "best_action", P, 0, "fail", case_key="best_action/prioritized/0/0~m:actions")
    )
    table = robustness.wording_table(pd.DataFrame(rows))
    line = table.loc[("m", "best_action")]
    assert (line["wording 0"], line["wording 1"], line["wording 2"]) == (1.0, 0.5, 0.0)
    assert line["spread"] == 1.0
    assert line["cases"] == 6


def test_consistency_undoes_swap_and_rename():
    key = "more_promising/prioritized/0/3-5"
    rows = [
        # family 1: K=state 3; swapped, state 3 is L; renamed, state 3 is M -> consistent
        pair("m", key, [3, 5], "K", "pass"),
        pair("m", f"{key}~m:swap", [5, 3], "L", "pass"),
        pair("m", f"{key}~m:rename", [3, 5], "M", "pass", RENAMED_SCHEMA),
        # family 2 (repeat 1): the same letter after the swap names the other state
        pair("m", key, [3, 5], "K", "pass", repeat=1),
        pair("m", f"{key}~m:swap", [5, 3], "K", "fail", repeat=1),
        pair("m", f"{key}~m:rename", [3, 5], "M", "pass", RENAMED_SCHEMA, repeat=1),
    ]
    families = robustness.family_answers(pd.DataFrame(rows))
    assert families["consistent"].tolist() == [True, False]
    table = robustness.consistency_table(pd.DataFrame(rows))
    line = table.loc[("m", "more_promising")]
    assert line["families"] == 2
    assert line["consistency"] == 0.5
    assert line["swap"] == 0.5 and line["rename"] == 1.0


def test_consistently_wrong_is_consistent_and_errors_are_left_out():
    key = "more_promising/prioritized/0/3-5"
    rows = [
        pair("m", key, [3, 5], "L", "fail"),
        pair("m", f"{key}~m:swap", [5, 3], "K", "fail"),
        row(FL, "m", "more_promising", P, 0, "error", case_key=f"{key}~m:rename", states=[3, 5]),
    ]
    table = robustness.consistency_table(pd.DataFrame(rows))
    assert table.loc[("m", "more_promising"), "consistency"] == 1.0


def test_probabilities_agree_within_the_tolerance():
    assert robustness.agree([0.50, 0.54, 0.52])
    assert not robustness.agree([0.50, 0.56])
    assert robustness.agree([("state", 3), ("state", 3)])
    assert not robustness.agree([None, "yes"])


def test_repeat_statistics():
    rows = []
    verdicts = {0: ["pass", "pass", "fail"], 1: ["fail", "fail", "fail"], 2: ["pass"] * 3}
    answers = {0: ["yes", "yes", "no"], 1: ["no", "no", "no"], 2: ["yes"] * 3}
    for case, outcome in verdicts.items():
        for repeat, (verdict, answer) in enumerate(zip(outcome, answers[case], strict=True)):
            rows.append(
                row(FL, "m", "bottleneck", P, case, verdict, repeat, answer={"answer": answer})
            )
    # A case with a repeat missing its reply was asked k = 3 times but has 2 runs: it counts
    # where its runs do (agreement, score, majority) and leaves the k-draw estimators.
    rows.append(row(FL, "m", "bottleneck", P, 3, "pass", 0, answer={"answer": "yes"}))
    rows.append(row(FL, "m", "bottleneck", P, 3, "pass", 1, answer={"answer": "yes"}))
    rows.append(row(FL, "m", "bottleneck", P, 3, "error", 2))
    table = robustness.repeat_table(pd.DataFrame(rows))
    line = table.loc[("m", "bottleneck")]
    assert (line["cases"], line["k"]) == (4, 3)
    assert line["agreement"] == pytest.approx(3 / 4)
    assert line["majority_vote"] == pytest.approx(3 / 4)
    assert line["pass^k"] == pytest.approx(1 / 3)
    assert line["pass@k"] == pytest.approx(2 / 3)
    assert line["score"] == pytest.approx((2 / 3 + 0 + 1 + 1) / 4)

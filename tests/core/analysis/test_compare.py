"""Two campaigns compared case by case: pairing, the one-sided McNemar gate with Holm, the
interval, the power of the gate, the refusals; values checked by hand."""

from __future__ import annotations

import pandas as pd
import pytest
from scipy.stats import binom

from explaincheck.core.analysis import compare as cmp
from explaincheck.core.errors import ExplaincheckError


def side(plan: dict[str, list[str]], llm: str = "x", model_hash: str = "h1") -> pd.DataFrame:
    """``plan``: category -> one verdict per case (case i has state i)."""
    rows = []
    for category, verdicts in plan.items():
        for i, verdict in enumerate(verdicts):
            rows.append(
                {
                    "environment": "frozen_lake",
                    "model_hash": model_hash,
                    "llm": llm,
                    "category": category,
                    "selection": "prioritized",
                    "case_key": f"{category}/prioritized/{i}/{i}",
                    "states": [i],
                    "repeat": 0,
                    "verdict": verdict,
                }
            )
    return pd.DataFrame(rows)


def test_a_drop_on_eight_of_twelve_cases_is_a_regression_with_the_exact_p():
    base = side({"satisfy": ["pass"] * 12, "ranking": ["pass"] * 6})
    new = side({"satisfy": ["fail"] * 8 + ["pass"] * 4, "ranking": ["pass"] * 6})
    result = cmp.compare_campaigns(base, new, "x", "x")
    satisfy, ranking, overall = result.lines
    assert (satisfy.category, ranking.category, overall.category) == ("satisfy", "ranking", "all")
    assert (satisfy.both_pass, satisfy.base_only, satisfy.new_only, satisfy.both_fail) == (
        4,
        8,
        0,
        0,
    )
    assert satisfy.difference == pytest.approx(-8 / 12)
    assert satisfy.p == pytest.approx(0.5**8)  # one-sided exact McNemar: 8 of 8 discordant
    # Holm over the family satisfy, ranking, all: the two smallest (equal) p times 3
    assert satisfy.p_holm == pytest.approx(3 * 0.5**8)
    assert ranking.p == 1.0 and not ranking.regression
    assert satisfy.regression and overall.regression and result.regression
    assert [line.category for line in result.failed] == ["satisfy", "all"]  # categories first
    low, high = satisfy.ci
    assert -1 <= low < satisfy.difference < high < 0
    as_json = result.as_dict()
    assert as_json["pairs"] == 18 and as_json["regression"] is True
    assert set(as_json["categories"][0]) >= {
        "category", "pairs", "base_pass", "new_pass", "difference", "ci", "p", "p_holm",
        "mde", "regression",
    }  # fmt: skip


def test_an_improvement_is_never_a_regression():
    base = side({"satisfy": ["fail"] * 10})
    new = side({"satisfy": ["pass"] * 10})
    result = cmp.compare_campaigns(base, new, "x", "x")
    assert not result.regression and result.lines[0].p == 1.0
    assert result.lines[0].difference == 1.0 and result.lines[0].ci == (1.0, 1.0)


def test_max_drop_tolerates_a_drop_whose_interval_reaches_inside_it():
    base = side({"satisfy": ["pass"] * 40})
    new = side({"satisfy": ["fail"] * 8 + ["pass"] * 32})  # a 20 % drop
    assert cmp.compare_campaigns(base, new, "x", "x").regression
    tolerant = cmp.compare_campaigns(base, new, "x", "x", max_drop=0.1)
    assert not tolerant.regression  # the 95% interval of the drop reaches below 0.1
    assert tolerant.lines[0].ci[1] > -0.1


def test_cases_on_one_side_are_counted_and_left_out():
    base = side({"satisfy": ["pass"] * 5})
    new = side({"satisfy": ["pass"] * 3, "ranking": ["fail"] * 2})
    result = cmp.compare_campaigns(base, new, "x", "x")
    assert (result.pairs, result.only_base, result.only_new) == (3, 2, 2)


def test_different_models_and_no_shared_case_are_refused():
    base = side({"satisfy": ["pass"] * 3})
    with pytest.raises(ExplaincheckError, match="ran different models of frozen_lake"):
        cmp.compare_campaigns(base, side({"satisfy": ["pass"]}, model_hash="h2"), "x", "x")
    with pytest.raises(ExplaincheckError, match="share no case"):
        cmp.compare_campaigns(base, side({"ranking": ["pass"]}), "x", "x")


def test_exclude_flaky_leaves_out_cases_whose_repeats_disagree():
    base = side({"satisfy": ["pass"] * 4})
    new = side({"satisfy": ["fail"] * 4})
    flaky = new.iloc[[0]].assign(verdict="pass", repeat=1)  # case 0 passes on a second repeat
    result = cmp.compare_campaigns(base, pd.concat([new, flaky]), "x", "x", exclude_flaky=True)
    assert result.excluded_flaky == 1 and result.pairs == 3


def test_pick_llm_names_the_choice_when_a_file_holds_several():
    frame = pd.concat([side({"satisfy": ["pass"]}, "a"), side({"satisfy": ["pass"]}, "b")])
    assert cmp.pick_llm(frame, "b", "BASE f") == "b"
    with pytest.raises(ExplaincheckError, match=r"BASE f holds several LLMs \(a, b\)"):
        cmp.pick_llm(frame, None, "BASE f")
    with pytest.raises(ExplaincheckError, match="holds no results of 'c'"):
        cmp.pick_llm(frame, "c", "BASE f")


def test_gate_power_is_the_exact_binomial_sum():
    # no background: the test rejects when all m >= 5 discordant pairs go the base's way
    # (0.5^5 = 0.031 < 0.05, 0.5^4 = 0.0625 is not), so power = P(Bin(n, drop) >= 5)
    assert cmp.gate_power(100, 0.05) == pytest.approx(binom.sf(4, 100, 0.05))
    assert cmp.gate_power(4, 1.0) == 0.0  # 4 pairs can never reach 0.05
    mde = cmp.minimum_detectable_drop(100)
    assert cmp.gate_power(100, mde) >= 0.8 > cmp.gate_power(100, mde - 0.002)
    assert cmp.minimum_detectable_drop(4) is None
    # a background of random disagreement makes a drop harder to see
    assert cmp.minimum_detectable_drop(100, 0.2) > mde


def test_holm_agrees_with_statsmodels():
    from statsmodels.stats.multitest import multipletests

    p = [0.01, 0.04, 0.03, 0.5, 0.01]
    assert cmp.holm(p) == pytest.approx(multipletests(p, method="holm")[1])

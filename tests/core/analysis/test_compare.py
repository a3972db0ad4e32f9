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
    assert result.lines[0].difference == 1.0
    # ten of ten went the new side's way: the exact bound of θ (the base's share of the
    # discordant pairs) is 1 − 0.05^(1/10), so the difference is at least 1 − 2θ
    low, high = result.lines[0].ci
    assert high == 1.0 and low == pytest.approx(1 - 2 * (1 - 0.05 ** (1 / 10)))


def test_max_drop_tolerates_a_drop_whose_interval_reaches_inside_it():
    base = side({"satisfy": ["pass"] * 40})
    new = side({"satisfy": ["fail"] * 8 + ["pass"] * 32})  # a 20 % drop
    assert cmp.compare_campaigns(base, new, "x", "x").regression
    tolerant = cmp.compare_campaigns(base, new, "x", "x", max_drop=0.1)
    assert not tolerant.regression  # the 95% interval of the drop reaches below 0.1
    assert tolerant.lines[0].ci[1] > -0.1
    # one-sided 95 % bound of θ for 8 of 8 discordant: 0.05^(1/8); drop ≥ (8/40)(2θ − 1)
    assert tolerant.lines[0].ci[1] == pytest.approx(-(8 / 40) * (2 * 0.05 ** (1 / 8) - 1))


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


def test_the_interval_agrees_with_the_holm_verdict_on_every_line():
    """Issue 51.1: an A/A which_bottleneck of 6 pairs printed [−1.00, −0.33] beside p = 0.0625.
    Over random comparisons of several categories (pass/fail and shares of repeats), a line's
    interval lies wholly below 0 exactly when its Holm p is below α, and an interval is printed
    only where the pairs can reach the line's level."""
    import numpy as np

    rng = np.random.default_rng(0)
    checked = excluded = 0
    for _ in range(120):
        categories = rng.integers(1, 5)
        rows = []
        for c in range(categories):
            n = int(rng.integers(1, 25))
            drop = rng.uniform(0, 0.6)
            repeats = int(rng.choice([1, 1, 2, 3]))
            base = rng.binomial(repeats, 0.8, n) / repeats
            new = rng.binomial(repeats, np.clip(0.8 - drop, 0, 1), n) / repeats
            rows += [(f"c{c}", b, x) for b, x in zip(base, new, strict=True)]
        pairs = pd.DataFrame(rows, columns=["category", "base", "new"])
        for alpha in (0.05, 0.2):
            for line in cmp.gate_lines(pairs, alpha=alpha, detail=False):
                low, high = line.ci
                if low != low:  # none: no outcome of these pairs reaches the level
                    assert 0.5**line.pairs >= line.ci_level and not line.regression
                    continue
                checked += 1
                assert (high < 0) == (line.p_holm < alpha) == line.regression
                assert low <= line.difference + 1e-9 and line.difference <= high + 1e-9
                excluded += high < 0
    assert checked > 200 and excluded > 20


def test_six_pairs_with_p_one_sixteenth_print_no_interval_below_zero():
    """The issue's case: 4 of 6 pairs the base's way, 2 tied (p = 0.5^4 = 0.0625)."""
    base = side({"which_bottleneck": ["pass"] * 6, "satisfy": ["pass"] * 30})
    new = side({"which_bottleneck": ["fail"] * 4 + ["pass"] * 2, "satisfy": ["pass"] * 30})
    lines = cmp.compare_campaigns(base, new, "x", "x").lines
    line = next(x for x in lines if x.category == "which_bottleneck")
    assert line.p == pytest.approx(0.0625) and not line.regression
    low, high = line.ci
    assert low < line.difference < 0 < high  # the interval holds 0, as the test does


def test_shares_of_repeats_give_a_2x2_that_adds_up_to_the_pass_rates():
    """Issue 51.8: a case asked under both selections (or repeated) has a score that is a share;
    the 2×2 was thresholded while the rates were averaged. Now each rate is its side's both plus
    its only, over the pairs."""
    pairs = pd.DataFrame(
        {"category": ["satisfy"] * 4, "base": [1.0, 0.5, 0.5, 0.0], "new": [0.5, 0.5, 1.0, 0.0]}
    )
    (line,) = cmp.gate_lines(pairs)[:1]
    assert (line.both_pass, line.base_only, line.new_only, line.both_fail) == (1.5, 0.5, 0.5, 1.5)
    assert line.base_pass == pytest.approx((line.both_pass + line.base_only) / line.pairs)
    assert line.new_pass == pytest.approx((line.both_pass + line.new_only) / line.pairs)
    assert line.difference == pytest.approx((line.new_only - line.base_only) / line.pairs)
    assert line.as_dict()["both_pass"] == 1.5 and line.discordant == 2


def test_the_sign_flip_test_is_the_exact_enumeration():
    """With shares, the test flips the sign of each differing case: its p is the share of the
    2^m flips whose base-won sum is at least the one seen (checked by enumeration); with
    pass/fail scores it is McNemar's exact test."""
    import itertools

    from explaincheck.core.analysis.sign_flip import PairedDifferences

    base = [1.0, 1.0, 2 / 3, 1.0, 0.0, 1 / 3, 1.0]
    new = [0.0, 2 / 3, 1.0, 1 / 3, 0.0, 0.0, 1.0]
    found = PairedDifferences.of(base, new)
    assert found.scale == 3 and sorted(found.sizes.tolist()) == [1, 1, 1, 2, 3]
    seen = found.worse_total
    flips = list(itertools.product([0, 1], repeat=len(found.sizes)))
    sums = [int(sum(s * w for s, w in zip(found.sizes, f, strict=True))) for f in flips]
    at_least = sum(total >= seen for total in sums)
    assert found.p_worse() == pytest.approx(at_least / len(flips))
    binary = PairedDifferences.of([1.0] * 5 + [0.0] * 2, [0.0] * 5 + [1.0] * 2)
    assert binary.binary and binary.p_worse() == pytest.approx(binom.sf(4, 7, 0.5))


def test_holm_levels_reject_exactly_where_the_adjusted_p_does():
    from explaincheck.core.analysis.sign_flip import holm_levels

    for p in ([0.001, 0.04, 0.013, 0.5], [0.03, 0.04, 0.045], [0.01, 0.01, 0.2]):
        levels = holm_levels(p, 0.05)
        assert [a < b for a, b in zip(p, levels, strict=True)] == list(cmp.holm(p) < 0.05)
    assert holm_levels([0.03, 0.04, 0.045], 0.05) == pytest.approx([0.05 / 3] * 3)

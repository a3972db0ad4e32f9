"""Paired statistics on a hand-made table, checked against scipy called directly.

Two LLMs, a and b, on the same cases of two categories of frozen_lake:
- satisfy, 10 cases: both pass 2, a only 1, b only 7, both fail 0 → McNemar p = 2·P(X ≤ 1),
  X ~ Bin(8, ½) = 2·9/256 = 0.0703125;
- bottleneck, 6 cases: both pass 3, a only 1, b only 1, both fail 1 → p = 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from analysis_data import FL, P, row
from scipy import stats
from statsmodels.stats.multitest import multipletests

from explaincheck.core.analysis import paired

TABLE = {
    "satisfy": [(True, True)] * 2 + [(True, False)] + [(False, True)] * 7,
    "bottleneck": [(True, True)] * 3 + [(True, False), (False, True), (False, False)],
}


def _results(extra_error: bool = True) -> pd.DataFrame:
    rows = []
    for category, outcomes in TABLE.items():
        for i, (a, b) in enumerate(outcomes):
            rows.append(row(FL, "a", category, P, i, "pass" if a else "fail"))
            rows.append(row(FL, "b", category, P, i, "pass" if b else "invalid"))
    if extra_error:  # a case only one side replied to: not a pair
        rows.append(row(FL, "a", "satisfy", P, 99, "pass"))
        rows.append(row(FL, "b", "satisfy", P, 99, "error"))
    return pd.DataFrame(rows)


def _arrays(category: str) -> tuple[np.ndarray, np.ndarray]:
    outcomes = np.array(TABLE[category], dtype=float)
    return outcomes[:, 0], outcomes[:, 1]


def test_mcnemar_is_the_exact_binomial_test_on_discordant_pairs():
    table = paired.compare(_results(), "a", "b")
    assert table.loc["satisfy", "pairs"] == 10  # the error row made no pair
    assert (table.loc["satisfy", "a_only"], table.loc["satisfy", "b_only"]) == (1, 7)
    assert table.loc["satisfy", "p_mcnemar"] == pytest.approx(0.0703125)
    assert table.loc["satisfy", "p_mcnemar"] == pytest.approx(stats.binomtest(1, 8).pvalue)
    assert table.loc["bottleneck", "p_mcnemar"] == pytest.approx(1.0)
    assert table.loc["all", "p_mcnemar"] == pytest.approx(stats.binomtest(2, 10).pvalue)


def test_bootstrap_interval_is_scipy_paired_bootstrap():
    table = paired.compare(_results(), "a", "b", seed=3)
    a, b = _arrays("satisfy")
    direct = stats.bootstrap(
        (a, b),
        lambda x, y, axis: x.mean(axis=axis) - y.mean(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=paired.RESAMPLES,
        random_state=np.random.default_rng(3),
    ).confidence_interval
    assert table.loc["satisfy", "difference"] == pytest.approx(0.3 - 0.9)
    assert table.loc["satisfy", "diff_low"] == pytest.approx(direct.low)
    assert table.loc["satisfy", "diff_high"] == pytest.approx(direct.high)
    assert direct.low < -0.6 < direct.high <= 0  # the interval holds the difference


def test_wilson_intervals_match_scipy():
    table = paired.compare(_results(), "a", "b")
    ci = stats.binomtest(3, 10).proportion_ci(method="wilson")
    assert table.loc["satisfy", "a_low"] == pytest.approx(ci.low)
    assert table.loc["satisfy", "a_high"] == pytest.approx(ci.high)
    ci = stats.binomtest(9, 10).proportion_ci(method="wilson")
    assert (table.loc["satisfy", "b_low"], table.loc["satisfy", "b_high"]) == pytest.approx(
        (ci.low, ci.high)
    )


def test_holm_adjusts_across_categories_only():
    table = paired.compare(_results(), "a", "b")
    p_satisfy, p_bottleneck = (
        table.loc["satisfy", "p_mcnemar"],
        table.loc["bottleneck", "p_mcnemar"],
    )
    # Holm for two tests: the smaller p doubled, the larger one at least that.
    assert table.loc["satisfy", "p_holm"] == pytest.approx(2 * p_satisfy)
    assert table.loc["bottleneck", "p_holm"] == pytest.approx(max(2 * p_satisfy, p_bottleneck))
    expected = multipletests([p_bottleneck, p_satisfy], method="holm")[1]
    assert table.loc[["bottleneck", "satisfy"], "p_holm"].tolist() == pytest.approx(expected)
    # one LLM pair: the overall row is a family of one, its own p
    assert table.loc["all", "p_holm"] == pytest.approx(table.loc["all", "p_mcnemar"])
    assert not table["significant"].any()  # 0.14 after Holm: no difference survives


def test_holm_runs_over_every_llm_pair_and_category():
    """Three LLMs: (a, b), (a, c), (b, c) × two categories = six members of one family."""
    rows = _results(extra_error=False).to_dict("records")
    rows += [dict(r, llm="c") for r in rows if r["llm"] == "a"]  # c answers exactly as a does
    frame = pd.DataFrame(rows)
    family = paired.compare_family(frame, paired.compared_llms(frame))
    assert set(family) == {("a", "b"), ("a", "c"), ("b", "c")}
    members = [
        (pair, category, table.loc[category, "p_mcnemar"])
        for pair, table in family.items()
        for category in ("satisfy", "bottleneck")
    ]
    expected = multipletests([p for _, _, p in members], method="holm")[1]
    for (pair, category, _), adjusted in zip(members, expected, strict=True):
        assert family[pair].loc[category, "p_holm"] == pytest.approx(adjusted)
    # a vs c agree everywhere: p = 1; a vs b satisfy: 0.0703 times 6 members' Holm factor
    assert family[("a", "c")].loc["satisfy", "p_mcnemar"] == 1.0
    assert family[("a", "b")].loc["satisfy", "p_holm"] == pytest.approx(min(1.0, 6 * 0.0703125))
    overall = multipletests([t.loc["all", "p_mcnemar"] for t in family.values()], method="holm")
    assert [t.loc["all", "p_holm"] for t in family.values()] == pytest.approx(overall[1])


def test_repeats_and_both_selections_count_a_case_once():
    """--repeat 3 on 10 satisfy cases gives 30 executions per LLM but 10 pairs; a case drawn
    by both selections (same states) is one case in the overall row."""
    rows = []
    for case in range(10):
        for repeat in range(3):
            rows.append(row(FL, "a", "satisfy", P, case, "pass", repeat))
            # b passes 1 of 3 repeats on cases 0-5, all 3 on 6-9
            b_passes = repeat == 0 or case >= 6
            rows.append(row(FL, "b", "satisfy", P, case, "pass" if b_passes else "fail", repeat))
    for llm in ("a", "b"):  # case 0 drawn again by the random selection (same states)
        rows.append(row(FL, llm, "satisfy", "random", 0, "pass"))
    table = paired.compare(pd.DataFrame(rows), "a", "b")
    assert table.loc["satisfy", "pairs"] == 10
    assert table.loc["all", "pairs"] == 10
    # case 0: a 4/4, b 2/4 (1 of 3 repeats + the random draw); cases 1-5: a 1, b 1/3
    assert table.loc["satisfy", "score_b"] == pytest.approx((0.5 + 5 / 3 + 4) / 10)
    assert (table.loc["satisfy", "a_only"], table.loc["satisfy", "b_only"]) == (6, 0)
    assert table.loc["satisfy", "p_mcnemar"] == pytest.approx(stats.binomtest(6, 6).pvalue)


def test_compared_llms_leave_out_baseline_and_ceiling():
    frame = pd.DataFrame({"llm": ["oracle", "random", "x", "y", "z"]})
    assert paired.compared_llms(frame) == [("x", "y"), ("x", "z"), ("y", "z")]


def test_rq1_per_llm_gives_cohens_h_of_the_pooled_rates():
    from analysis_data import wilcoxon_results
    from statsmodels.stats.proportion import proportion_effectsize

    table = paired.rq1_per_llm(wilcoxon_results())
    assert list(table.index) == ["m1"]  # the oracle is left out
    prioritized, random = 14 / 36, 25 / 36  # sums of the PAIRS passes over 9 cells of 4 cases
    assert table.loc["m1", "prioritized"] == pytest.approx(prioritized)
    assert table.loc["m1", "cohens_h"] == pytest.approx(proportion_effectsize(prioritized, random))
    assert table.loc["m1", "cohens_h"] < 0
    assert table.loc["m1", "cells"] == 9


def test_equal_differences_give_no_interval_and_no_warning():
    """Every pair differs by the same amount: every resample agrees, so there is no interval,
    and scipy is not even asked (its warning escaped ``catch_warnings`` on GUI threads)."""
    import warnings

    a = np.array([1.0, 1.0, 0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high = paired.bootstrap_difference(a, a)
        shifted_low, _ = paired.bootstrap_difference(a, a - 1.0)
    assert np.isnan(low) and np.isnan(high) and np.isnan(shifted_low)
    varied = paired.bootstrap_difference(a, np.array([0.0, 1.0, 0.0, 1.0]))
    assert varied[0] <= 0.0 <= varied[1]


def test_repeat_3_run_pairs_each_distinct_case_once(tmp_path):
    """End to end: ``run --repeat 3 --selection both`` then ``report --format csv``: the paired
    table's ``pairs`` is the number of distinct questions, not executions."""
    from pathlib import Path

    from explaincheck.core.cli.main import main
    from explaincheck.core.store import results_frame

    model = str(Path(__file__).parents[2] / "models" / "shortcut.prism")
    db, out = tmp_path / "r.sqlite", tmp_path / "report"
    run = ["run", "--env", model, "--llm", "noisy:0.5", "--llm", "flaw:distance"]
    assert (
        main([*run, "--repeat", "3", "--selection", "both", "--budget", "4", "--db", str(db)]) == 0
    )
    assert main(["report", "--db", str(db), "--out", str(out), "--format", "csv"]) == 0
    frame = results_frame(db)
    mine = frame[frame["llm"] == "noisy:0.5"]
    assert set(mine["repeat"]) == {0, 1, 2}
    distinct = {
        (c, paired.question_identity(k))
        for c, k in zip(mine["category"], mine["case_key"], strict=True)
    }
    table = pd.read_csv(out / "paired_flaw_distance_vs_noisy_0_5.csv").set_index("category")
    assert table.loc["all", "pairs"] == len(distinct) < len(mine) / 3
    for category, group in mine.groupby("category"):
        per_category = {paired.question_identity(k) for k in group["case_key"]}
        assert table.loc[category, "pairs"] == len(per_category)

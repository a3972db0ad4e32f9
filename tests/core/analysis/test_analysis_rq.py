"""RQ1 (prioritisation), RQ2 (models) and RQ3 (difficulty) on hand-made results."""

from __future__ import annotations

import math

import pytest
import scipy.stats
from analysis_data import FL, PAIRS, WJ, small_results, wilcoxon_results

from explaincheck.core.analysis import difficulty, models, prioritization


def test_rq1_counts_on_small_results():
    cells = prioritization.comparable_cells(small_results())
    by_key = cells.set_index(["environment", "llm", "category"])
    assert len(cells) == 5  # water_jug/m1/satisfy has no random score (errors only)
    assert by_key.loc[(FL, "m1", "satisfy"), "outcome"] == "harder"
    assert by_key.loc[(FL, "m1", "bottleneck"), "difference"] == pytest.approx(0.5 - 2 / 3)
    assert by_key.loc[(FL, "random", "bottleneck"), "outcome"] == "tied"
    assert by_key.loc[(WJ, "random", "satisfy"), "outcome"] == "easier"
    counts = prioritization.effect_counts(small_results())
    assert counts["cells"].to_dict() == {"harder": 2, "easier": 2, "tied": 1, "total": 5}
    assert counts["share"].tolist() == pytest.approx([0.4, 0.4, 0.2, 1.0])


def test_rq1_too_few_cells_says_so():
    test = prioritization.wilcoxon_test(small_results()).iloc[0]
    assert (test["cells"], test["untied"]) == (5, 4)
    assert math.isnan(test["p_value"]) and math.isnan(test["statistic"])
    assert "too few cells" in test["conclusion"]


def test_rq1_counts_and_wilcoxon_against_scipy():
    results = wilcoxon_results()
    counts = prioritization.effect_counts(results)
    assert counts["cells"].to_dict() == {"harder": 6, "easier": 1, "tied": 2, "total": 9}
    assert counts["share"].tolist() == pytest.approx([6 / 9, 1 / 9, 2 / 9, 1.0])
    prioritized = [p / 4 for p, _ in PAIRS.values()]
    random = [r / 4 for _, r in PAIRS.values()]
    direct = scipy.stats.wilcoxon(prioritized, random, alternative="less")
    test = prioritization.wilcoxon_test(results).iloc[0]
    assert (test["cells"], test["untied"]) == (9, 7)
    assert test["statistic"] == pytest.approx(direct.statistic)
    assert test["p_value"] == pytest.approx(direct.pvalue)
    assert test["p_value"] < 0.05  # six of seven untied cells are harder
    assert f"p = {direct.pvalue:.3g}" in test["conclusion"]


def test_rq1_oracle_left_out_unless_asked():
    results = wilcoxon_results(with_oracle=True)
    assert len(prioritization.comparable_cells(results)) == 9
    assert len(prioritization.comparable_cells(results, exclude=())) == 18


def test_rq2_model_comparison_numbers():
    table = models.model_comparison(small_results())
    assert list(table.index) == ["m1", "random"]
    m1 = table.loc["m1"]
    assert m1["prioritized"] == pytest.approx((0.5 + 0.25) / 2)
    assert m1["random"] == pytest.approx(5 / 6)  # water_jug has no random score
    assert m1["mean"] == pytest.approx(((0.5 + 5 / 6) / 2 + 0.25) / 2)
    assert m1["environments"] == 2
    assert m1["baseline"] == pytest.approx(((0.5 + 0.25) / 2 + (1.0 + 0.5) / 2) / 2)
    assert m1["vs_baseline"] == pytest.approx(m1["mean"] - m1["baseline"])
    baseline = table.loc["random"]
    assert baseline[["prioritized", "random", "mean"]].tolist() == pytest.approx(
        [0.75, 0.375, 0.5625]
    )
    assert baseline["vs_baseline"] == pytest.approx(0.0)


def test_rq2_baseline_only_on_shared_environments():
    results = small_results()
    results = results[~((results.llm == "m1") & (results.environment == WJ))]
    m1 = models.model_comparison(results).loc["m1"]
    assert m1["environments"] == 1
    assert m1["baseline"] == pytest.approx((0.5 + 0.25) / 2)  # random on frozen_lake only
    assert m1["vs_baseline"] == pytest.approx((0.5 + 5 / 6) / 2 - 0.375)


def test_rq2_without_baseline_is_nan():
    results = small_results()
    table = models.model_comparison(results[results.llm == "m1"])
    assert math.isnan(table.loc["m1", "baseline"])
    assert math.isnan(table.loc["m1", "vs_baseline"])


def test_rq3_difficulty_pooled_over_llms_and_selections():
    table = difficulty.category_difficulty(small_results())
    assert table["category"].tolist() == ["satisfy", "bottleneck"]  # hardest first
    satisfy, bottleneck = table.iloc[0], table.iloc[1]
    # satisfy cells: 0.5, 1, 0.5, 0, 0.25, (err), 1, 0.5
    assert satisfy["score"] == pytest.approx(3.75 / 7)
    assert satisfy["cells"] == 7
    assert bottleneck["score"] == pytest.approx((0.5 + 2 / 3 + 0.5 + 0.5) / 4)
    assert table["dimension"].tolist() == ["state", "state"]
    assert table["label"].tolist() == ["Sat.", "Bttl."]


def test_rq3_excludes_oracle():
    table = difficulty.category_difficulty(wilcoxon_results()).set_index("category")
    assert table.loc["satisfy", "score"] == pytest.approx((1 + 3 + 3 + 2 + 0 + 2) / 24)
    assert table["cells"].tolist() == [6, 6, 6]
    with_oracle = difficulty.category_difficulty(wilcoxon_results(), exclude=())
    assert with_oracle["cells"].tolist() == [12, 12, 12]
    order = difficulty.category_difficulty(wilcoxon_results())["category"].tolist()
    assert order == ["best_action", "satisfy", "bottleneck"]  # 9/24, 11/24, 19/24

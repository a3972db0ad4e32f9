"""RQ1's chance-corrected test and its negative controls (issue 26, point 1).

Hand-made: six frozen_lake categories answered by m1 (under test) and random. Prioritised
cells hold 4 cases with 4 options (chance ¼), random cells 4 cases with 2 options (chance ½);
each cell passes exactly its chance share (1 of 4, 2 of 4). Uncorrected, every prioritised cell
is lower (0.25 < 0.5): p = 1/64 one-sided. Chance-corrected, a pass scores 1 and a fail
−c/(1 − c): prioritised (1 − 3·⅓)/4 = 0, random (2 − 2·1)/4 = 0, every cell tied.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from analysis_data import FL, P, R, row

from explaincheck.core.analysis import paired, prioritization
from explaincheck.core.analysis.controls import control_results, control_table
from explaincheck.core.taxonomy.registry import PAPER_CATEGORIES

CATEGORIES = ("satisfy", "bottleneck", "best_action", "worst_action", "ranking", "safer")


def _schema(options: int) -> dict:
    return {"properties": {"answer": {"enum": [chr(97 + i) for i in range(options)]}}}


def _at_chance(llm: str) -> list[dict]:
    rows = []
    for category in CATEGORIES:
        for selection, options, passes in ((P, 4, 1), (R, 2, 2)):
            for case in range(4):
                verdict = "pass" if case < passes else "fail"
                rows.append(
                    row(
                        FL,
                        llm,
                        category,
                        selection,
                        case,
                        verdict,
                        schema=_schema(options),
                        expected={"answer": "a"},
                        grading=None,
                        # other states under random selection: a cell with contrast (the
                        # corrected tests leave same-case cells out)
                        states=[case if selection == P else case + 100],
                    )
                )
    return rows


def test_corrected_case_scores_are_zero_at_chance():
    cases = prioritization.corrected_case_scores(pd.DataFrame(_at_chance("m1")))
    prioritised = cases[cases["selection"] == P]
    assert set(prioritised["chance"]) == {0.25}
    assert sorted(set(prioritised["corrected"].round(12))) == pytest.approx([-1 / 3, 1.0])
    cells = prioritization.comparable_cells(pd.DataFrame(_at_chance("m1")), corrected=True)
    assert cells[P].tolist() == pytest.approx([0.0] * 6)
    assert cells[R].tolist() == pytest.approx([0.0] * 6)


def test_paper_test_finds_chance_and_corrected_test_does_not():
    results = pd.DataFrame(_at_chance("m1") + _at_chance("random"))
    tests = prioritization.rq1_tests(results)
    paper = tests.loc[prioritization.PAPER]
    assert paper["answerers"] == "m1, random" and paper["cells"] == 12
    assert paper["p_value"] == pytest.approx(1 / 2**12)  # 12 cells, all "harder"
    assert paper["mean_difference"] == pytest.approx(-0.25)
    headline = tests.loc[prioritization.HEADLINE]
    assert headline["answerers"] == "m1"  # random is a baseline: out of the headline
    assert headline["cells"] == 6 and headline["untied"] == 0
    assert math.isnan(headline["p_value"]) and headline["mean_difference"] == pytest.approx(0)
    control = tests.loc["negative control random: the paper's"]
    assert control["p_value"] == pytest.approx(1 / 64)
    assert "random" in prioritization.controls_sentence(tests)
    per_llm = paired.rq1_per_llm(results)
    assert per_llm.loc["random", "wilcoxon_p"] == pytest.approx(1 / 64)
    assert math.isnan(per_llm.loc["random", "corrected_p"])  # every corrected cell tied
    assert per_llm.loc["random", "role"] == "negative control"
    assert per_llm.loc["m1", "role"] == "under test"


def test_cluster_interval_holds_the_mean_and_needs_two_clusters():
    cells = pd.DataFrame(
        {
            "environment": [FL] * 4,
            "category": ["a", "a", "b", "c"],
            "difference": [-0.2, -0.4, 0.1, -0.1],
        }
    )
    low, high = prioritization.cluster_interval(cells)
    assert low <= cells["difference"].mean() <= high
    assert low >= -0.3 - 1e-9 and high <= 0.1 + 1e-9  # cluster means: -0.3, 0.1, -0.1
    assert all(map(math.isnan, prioritization.cluster_interval(cells.iloc[:2])))


def test_negative_controls_are_not_significant_under_the_corrected_test():
    """A small version of benchmarks/rq1_controls.py: three environments, budget 6, seed 0.
    The corrected test finds no prioritisation effect for random nor for noisy:0.5 (chance
    alone). On the paper's categories: a new category's cells move the p-values."""
    environments = ("frozen_lake", "wolf_goat_cabbage", "dam")
    table = control_table(environments, [0], budget=6, categories=PAPER_CATEGORIES)
    by_control = table.set_index("control")
    assert set(by_control.index) == {"random", "noisy:0.5", "hedge"}
    assert (by_control["cells"] >= 20).all()
    # One draw of a calibrated test: under the null 5 % of draws fall below 0.05 (here random's
    # corrected p is 0.88, noisy's 0.97, hedge's 0.87). Before the random answerer's seed held
    # the model, the same case key drew the same guess in every environment, the clusters'
    # errors were correlated and random's corrected p was 0.039 here (0.012 on the example
    # report). Calibration over seeds is the benchmark's (docs/method.md's generated figures).
    assert (by_control["corrected_p"] >= 0.05).all()


def test_the_papers_test_is_biased_by_chance_itself_on_best_and_worst_action():
    """Why the paper's uncorrected test cannot be the headline: for best and worst action δ is
    1 − chance, so the prioritised cases are those a guess passes least often. The expected
    score of the random answerer is its chance, so this is a fact of the cases, no draw."""
    environments = ("frozen_lake", "wolf_goat_cabbage", "dam")
    found = control_results(
        environments, ["random"], budget=6, categories=["best_action", "worst_action"]
    )
    chance = prioritization.corrected_case_scores(found).groupby("selection")["chance"].mean()
    assert chance["prioritized"] < chance["random"] - 0.05


def test_with_only_controls_the_note_says_that_no_answerer_under_test_ran():
    """Issue 51.8: with random and noisy:0.5 alone, the power sentence said "no cell with
    contrast to simulate on" although their cells have contrast."""
    from explaincheck.core.analysis.controls import control_results
    from explaincheck.core.analysis.report import build_report

    results = control_results(["frozen_lake", "water_jug"], ["random", "noisy:0.5"], budget=6)
    (section,) = build_report(results, only=["rq1_wilcoxon"]).sections
    assert "no answerer under test ran" in section.note
    assert "no cell with contrast" not in section.note
    assert section.table.loc["headline: chance-corrected", "answerers"] == "–"

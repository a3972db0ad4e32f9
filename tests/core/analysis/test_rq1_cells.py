"""RQ1's cell table, the same-case cells left out of the headline, the cluster test and the
power line (issue 35, points 3 and 4).

Hand-made: two frozen_lake cells of m1. satisfy draws the states 0–3 under both selections
(a pool no larger than the budget: no contrast); best_action draws 0–3 prioritised and 10–13
at random. δ of state s is 0.1·s (``analysis_data.row``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from analysis_data import FL, P, R, row

from explaincheck.core.analysis import prioritization, rq1_cells, rq1_power
from explaincheck.core.analysis.controls import control_results


def _frame() -> pd.DataFrame:
    rows = []
    for category, offset in (("satisfy", 0), ("best_action", 10)):
        for selection in (P, R):
            for case in range(4):
                state = case + (offset if selection == R else 0)
                verdict = "pass" if case < 2 else "fail"
                rows.append(row(FL, "m1", category, selection, state, verdict, delta=0.1 * state))
    return pd.DataFrame(rows)


def test_the_cell_table_marks_cells_that_drew_the_same_cases():
    found = rq1_cells.rq1_cells(_frame())
    assert list(found.columns) == rq1_cells.COLUMNS
    table = found.set_index("category")
    assert table.loc["satisfy", "same_cases"] and not table.loc["best_action", "same_cases"]
    assert table.loc["best_action", ["n_prioritized", "n_random"]].tolist() == [4, 4]
    # mean δ of states 0..3 is 0.15; of 10..13 it is 1.15 (the hand-made δ is 0.1·state)
    assert table.loc["best_action", "mean_delta_prioritized"] == pytest.approx(0.15)
    assert table.loc["best_action", "mean_delta_random"] == pytest.approx(1.15)
    assert rq1_cells.same_case_keys(_frame()) == {(FL, "satisfy", "m1")}


def test_same_case_cells_are_left_out_of_the_corrected_test_with_a_count():
    found = prioritization.wilcoxon_test(_frame(), corrected=False, clustered=True).iloc[0]
    assert found["cells"] == 1 and found["same_cases_left_out"] == 1
    assert "1 same-case cells left out" in found["conclusion"]
    paper = prioritization.wilcoxon_test(_frame()).iloc[0]  # the paper's keeps every cell
    assert paper["cells"] == 2 and paper["same_cases_left_out"] == 0


def test_the_headline_averages_each_cluster_over_its_llms():
    cells = pd.DataFrame(
        {
            "environment": [FL] * 4,
            "category": ["satisfy", "satisfy", "ranking", "ranking"],
            "llm": ["a", "b", "a", "b"],
            "difference": [-0.2, -0.4, 0.1, 0.3],
        }
    )
    means = rq1_cells.cluster_means(cells)
    assert means.to_dict() == pytest.approx({(FL, "satisfy"): -0.3, (FL, "ranking"): 0.2})
    # five negative clusters: the smallest one-sided p of the exact test, 1/32
    w, p, untied = rq1_cells.cluster_test(np.array([-0.1, -0.2, -0.3, -0.4, -0.5]), 5)
    assert (w, untied) == (0.0, 5) and p == pytest.approx(1 / 32)
    assert np.isnan(rq1_cells.cluster_test(np.array([-0.1, 0.0, 0.0]), 5)[1])


@pytest.fixture(scope="module")
def frozen_lake():
    """random on frozen_lake at budget 20, relabelled as three models under test."""
    base = control_results(
        ["frozen_lake"], ["random"], budget=20, categories=["best_action", "more_promising"]
    )
    return pd.concat([base.assign(llm=name) for name in ("m1", "m2", "m3")], ignore_index=True)


def test_frozen_lakes_best_action_cell_at_budget_20_is_marked(frozen_lake):
    table = rq1_cells.rq1_cells(frozen_lake).set_index(["category", "llm"])
    assert table.loc[("best_action", "m1"), "same_cases"]  # a pool of 10 decided states
    assert not table.loc[("more_promising", "m1"), "same_cases"]
    headline = prioritization.rq1_tests(frozen_lake).loc[prioritization.HEADLINE]
    assert headline["same_cases_left_out"] == 3 and headline["clusters"] == 1


def test_three_llms_sharing_their_cases_count_as_one_cluster_each():
    """Five clusters where three LLMs answer alike (fully shared difficulty): over 15 cells the
    test sees 15 negative signs (p < 0.001; tied magnitudes, normal approximation), over the
    clusters it sees 5 (p = 1/32), which is all five independent case sets can show."""
    rows = []
    for index, difference in enumerate([-0.1, -0.2, -0.3, -0.4, -0.5]):
        for llm in ("a", "b", "c"):
            rows.append(
                {"environment": FL, "category": f"c{index}", "llm": llm, "difference": difference}
            )
    cells = pd.DataFrame(rows)
    p_cells = rq1_cells.cluster_test(cells["difference"].to_numpy(), 5)[1]
    p_clusters = rq1_cells.cluster_test(rq1_cells.cluster_means(cells).to_numpy(), 5)[1]
    assert p_cells < 0.001 and p_clusters == pytest.approx(1 / 32)


def test_the_power_line_and_the_null_on_one_cluster(frozen_lake):
    """One cluster with contrast (more_promising): the exact test cannot reject (needs five
    untied clusters), whatever the effect, and the report says a non-significant result
    says little."""
    pool = rq1_power.case_pool(frozen_lake)
    assert pool.clusters == 1 and pool.cases == 36  # 40 pairs asked, 4 under both selections
    assert rq1_power.simulate(pool, llms=3, beta=0.4, simulations=20)["clustered"] == 0.0
    sentence = rq1_power.power_sentence(frozen_lake)
    assert sentence.startswith("Power 0.00 for β = 0.4 on these 1 clusters (3 LLM(s)")
    assert sentence.endswith("a non-significant result says little.")

"""Table 1 and its companion tables on hand-made results (numbers worked out in analysis_data)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from analysis_data import FL, WJ, small_results

from explaincheck.core.analysis import scores
from explaincheck.core.errors import ExplaincheckError

ROWS = [(FL, "m1"), (FL, "random"), (WJ, "m1"), (WJ, "random")]


def test_case_score_is_share_of_passing_repeats_without_errors():
    cases = scores.case_scores(small_results())
    sat = cases[
        (cases.environment == FL) & (cases.llm == "m1") & (cases.selection == "prioritized")
    ]
    sat = sat[sat.category == "satisfy"].set_index("case_key")
    assert sat["score"].tolist() == [0.5, 1.0, 0.0]
    assert sat["repeats"].tolist() == [2, 2, 1]  # the error repeat is left out
    assert sat["invalid_share"].tolist() == [0.0, 0.0, 1.0]


def test_cell_scores_every_number():
    cells = scores.cell_scores(small_results()).set_index(scores.CELL_KEYS)
    expected = {
        (FL, "m1", "satisfy", "prioritized"): (0.5, 1 / 3, 3, 6, 1),
        (FL, "m1", "satisfy", "random"): (1.0, 0.0, 2, 2, 0),
        (FL, "m1", "bottleneck", "prioritized"): (0.5, 0.0, 4, 4, 0),
        (FL, "m1", "bottleneck", "random"): (2 / 3, 0.0, 3, 3, 0),
        (FL, "random", "satisfy", "prioritized"): (0.5, 0.0, 2, 2, 0),
        (FL, "random", "satisfy", "random"): (0.0, 0.0, 2, 2, 0),
        (FL, "random", "bottleneck", "prioritized"): (0.5, 0.0, 2, 2, 0),
        (FL, "random", "bottleneck", "random"): (0.5, 0.0, 2, 2, 0),
        (WJ, "m1", "satisfy", "prioritized"): (0.25, 0.0, 4, 4, 0),
        (WJ, "m1", "satisfy", "random"): (math.nan, math.nan, 0, 1, 1),
        (WJ, "random", "satisfy", "prioritized"): (1.0, 0.0, 1, 1, 0),
        (WJ, "random", "satisfy", "random"): (0.5, 0.0, 2, 2, 0),
    }
    assert len(cells) == len(expected)
    for key, (score, invalid, cases, executions, errors) in expected.items():
        got = cells.loc[key]
        assert got["score"] == pytest.approx(score, nan_ok=True), key
        assert got["invalid_share"] == pytest.approx(invalid, nan_ok=True), key
        assert (got["cases"], got["executions"], got["errors"]) == (cases, executions, errors)
        assert got["dimension"] == "state"


def test_table1_text_every_cell():
    table = scores.table1(small_results())
    assert list(table.index) == ROWS
    assert list(table.columns) == [("State", "satisfy"), ("State", "bottleneck"), ("", "average")]
    # every cell here has fewer than 6 cases, so each side is marked †; averages are not
    assert table.values.tolist() == [
        ["0.50†/1.00†", "0.50†/0.67†", "0.50/0.83"],
        ["0.50†/0.00†", "0.50†/0.50†", "0.50/0.25"],
        ["0.25†/err", "–", "0.25/–"],  # water_jug has no bottleneck: not applicable
        ["1.00†/0.50†", "–", "1.00/0.50"],
    ]


def test_table1_single_selection_shows_one_number():
    results = small_results()
    table = scores.table1(results[results.selection == "prioritized"])
    assert table.values.tolist() == [
        ["0.50†", "0.50†", "0.50"],
        ["0.50†", "0.50†", "0.50"],
        ["0.25†", "–", "0.25"],
        ["1.00†", "–", "1.00"],
    ]


def test_score_matrix_numbers():
    results = small_results()
    prioritized = scores.score_matrix(results, "prioritized")
    assert prioritized.loc[(FL, "m1")].tolist() == pytest.approx([0.5, 0.5, 0.5])
    random = scores.score_matrix(results, "random")
    assert random.loc[(FL, "m1")].tolist() == pytest.approx([1.0, 2 / 3, 5 / 6])
    assert math.isnan(random.loc[(WJ, "m1"), "satisfy"])
    assert math.isnan(random.loc[(WJ, "m1"), "bottleneck"])
    both = scores.score_matrix(results)  # mean over the selections that scored
    assert both.loc[(FL, "m1")].tolist() == pytest.approx([0.75, 7 / 12, 2 / 3])
    assert both.loc[(WJ, "m1"), "satisfy"] == pytest.approx(0.25)


def test_harder_mask_marks_prioritized_below_random():
    mask = scores.harder_mask(small_results())
    assert mask.values.tolist() == [
        [True, True, True],
        [False, False, False],
        [False, False, False],
        [False, False, False],
    ]


def test_invalid_and_cases_tables():
    results = small_results()
    assert scores.invalid_table(results).values.tolist() == [
        ["0.33/0.00", "0.00/0.00", "0.17/0.00"],
        ["0.00/0.00", "0.00/0.00", "0.00/0.00"],
        ["0.00/err", "–", "0.00/–"],
        ["0.00/0.00", "–", "0.00/0.00"],
    ]
    cases = scores.cases_table(results)
    assert cases.columns[-1] == ("", "total")
    assert cases.values.tolist() == [
        ["3/2", "4/3", "7/5"],
        ["2/2", "2/2", "4/4"],
        ["4/0", "–", "4/0"],
        ["1/2", "–", "1/2"],
    ]


def test_execution_counts_count_errors_and_invalid_share():
    counts = scores.execution_counts(small_results())
    assert list(counts.index) == ROWS
    fl_m1 = counts.loc[(FL, "m1")]
    assert fl_m1[["executions", "pass", "fail", "invalid", "errors"]].tolist() == [15, 9, 4, 1, 1]
    assert fl_m1["invalid_share"] == pytest.approx(1 / 14)
    wj_m1 = counts.loc[(WJ, "m1")]
    assert wj_m1[["executions", "pass", "fail", "invalid", "errors"]].tolist() == [5, 1, 3, 0, 1]


def test_unknown_environments_and_llm_order():
    results = small_results()
    results.loc[results.environment == WJ, "environment"] = "aaa_custom"
    results.loc[results.llm == "m1", "llm"] = "zz:model"
    results = pd.concat([results, results[results.llm == "random"].assign(llm="oracle")])
    index = list(scores.table1(results).index)
    assert index == [
        (FL, "zz:model"),
        (FL, "random"),
        (FL, "oracle"),
        ("aaa_custom", "zz:model"),
        ("aaa_custom", "random"),
        ("aaa_custom", "oracle"),
    ]


def test_empty_frame_and_missing_columns():
    empty = small_results().iloc[0:0]
    assert scores.table1(empty).empty
    with pytest.raises(ExplaincheckError, match="verdict"):
        scores.table1(small_results().drop(columns="verdict"))


def test_cells_carry_wilson_intervals_equal_to_scipys():
    from scipy.stats import binomtest

    cells = scores.cell_scores(small_results()).set_index(scores.CELL_KEYS)
    for key, cell in cells.dropna(subset=["score"]).iterrows():
        passed = round(cell["score"] * cell["cases"])
        if abs(passed - cell["score"] * cell["cases"]) > 1e-9:
            continue  # a fractional case score (repeats): scipy's test needs whole numbers
        reference = binomtest(passed, int(cell["cases"])).proportion_ci(0.95, "wilson")
        assert cell["ci_low"] == pytest.approx(reference.low), key
        assert cell["ci_high"] == pytest.approx(reference.high), key
        assert cell["ci_low"] <= cell["score"] <= cell["ci_high"]


def test_small_cells_are_marked_and_six_cases_are_not():
    six = pd.concat([small_results()] * 3, ignore_index=True)
    six["case_key"] = [f"{k}#{i // len(small_results())}" for i, k in enumerate(six["case_key"])]
    table = scores.table1(six)
    counts = scores.cases_table(six)
    assert counts.iat[0, 0] == "9/6"  # frozen_lake m1 satisfy: 9 prioritised, 6 random cases
    assert table.iat[0, 0] == "0.50/1.00"  # n >= 6 on both sides: no mark
    assert counts.iat[3, 0] == "3/6" and table.iat[3, 0] == "1.00†/0.50"  # 3 cases: marked
    intervals = scores.interval_table(six)
    assert intervals.iat[3, 0] == "1.00 [0.44, 1.00] n=3†/0.50 [0.19, 0.81] n=6"
    assert intervals.iat[0, -1] == "n=21/n=15"

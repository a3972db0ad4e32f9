"""Uncertain verdicts (the oracle's intervals cannot decide them): stored as such, left out of
every score, the chance level and RQ1's pairs, and counted in the report and ``results``."""

from __future__ import annotations

import pandas as pd
import test_analysis_report as reported
from analysis_data import FL, P, row, small_results, small_rows

from explaincheck.core.analysis import report, scores
from explaincheck.core.analysis.chance import chance_cells
from explaincheck.core.analysis.paired import paired_outcomes
from explaincheck.core.cli.main import main
from explaincheck.core.store import Store, results_frame
from explaincheck.core.taxonomy.base import UNCERTAIN

SCHEMA = {"type": "object", "properties": {"answer": {"enum": ["yes", "no"]}}}


def with_uncertain() -> list[dict]:
    """The hand-made rows plus two uncertain executions of a new satisfy case of m1 and one of
    random, which would lower their scores if they were counted as fails."""
    extra = [
        row(FL, "m1", "satisfy", P, 7, UNCERTAIN, 0),
        row(FL, "m1", "satisfy", P, 7, UNCERTAIN, 1),
        row(FL, "random", "satisfy", P, 7, UNCERTAIN, 0),
    ]
    return small_rows() + extra


def test_scores_leave_uncertain_out_and_count_it():
    plain = scores.table1(small_results())
    mixed = pd.DataFrame(with_uncertain())
    assert scores.table1(mixed).values.tolist() == plain.values.tolist()
    cells = scores.cell_scores(mixed).set_index(scores.CELL_KEYS)
    cell = cells.loc[(FL, "m1", "satisfy", P)]
    assert (cell["cases"], cell["executions"], cell["uncertain"]) == (3, 8, 2)
    assert cell["score"] == 0.5
    counts = scores.execution_counts(mixed).loc[(FL, "m1")]
    assert counts[["executions", "pass", "fail", "invalid", "errors", "uncertain"]].tolist() == [
        17,
        9,
        4,
        1,
        1,
        2,
    ]
    assert abs(counts["invalid_share"] - 1 / 14) < 1e-12  # of the 14 scored executions


def test_chance_and_paired_outcomes_leave_uncertain_out():
    rows = [
        row(FL, "m1", "bottleneck", P, i, v, schema=SCHEMA, expected={"answer": "yes"})
        for i, v in enumerate(["pass", UNCERTAIN])
    ] + [
        row(FL, "m2", "bottleneck", P, i, v, schema=SCHEMA, expected={"answer": "yes"})
        for i, v in enumerate(["fail", "pass"])
    ]
    frame = pd.DataFrame(rows)
    chance = chance_cells(frame[frame["verdict"] == UNCERTAIN])
    assert chance.empty
    pairs = paired_outcomes(frame, "m1", "m2")
    assert len(pairs) == 1  # case 1 is uncertain for m1: no pair
    assert (pairs["a"].iloc[0], pairs["b"].iloc[0]) == (1.0, 0.0)


def test_store_round_trips_an_uncertain_row_and_the_report_counts_it(tmp_path):
    path = tmp_path / "results.sqlite"
    reported.write_db(path, with_uncertain())
    with Store.open(path) as store:
        stored = store.executions(verdict=UNCERTAIN)
        assert len(stored) == 3 and {r["verdict"] for r in stored} == {UNCERTAIN}
        assert store.count(UNCERTAIN) == 3
    frame = results_frame(path)
    assert (frame["verdict"] == UNCERTAIN).sum() == 3
    built = report.build_report(frame)
    table1 = next(s for s in built.sections if s.key == "table1")
    assert "3 uncertain verdicts" in table1.note and "left out of every score" in table1.note
    assert table1.table.values.tolist() == scores.table1(small_results()).values.tolist()
    assert ", 3 uncertain excluded from scores" in built.summary


def test_results_lists_and_counts_uncertain(tmp_path, capsys):
    path = tmp_path / "results.sqlite"
    reported.write_db(path, with_uncertain())
    assert main(["results", "--db", str(path)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == "34 executions: 15 pass, 13 fail, 1 invalid, 2 error, 3 uncertain"
    assert main(["results", "--db", str(path), "--verdict", "uncertain"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == "3 executions: 3 uncertain"

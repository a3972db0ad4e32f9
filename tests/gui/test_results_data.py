"""Rows belong to the open model by the stored model hash, not by file name."""

from __future__ import annotations

from pathlib import Path

from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.gui.adapters.results_data import same_model

CHAIN = Path(__file__).parents[1] / "models" / "chain.prism"


def test_two_model_prism_files_in_two_folders_do_not_share_rows(tmp_path):
    first = tmp_path / "a" / "model.prism"
    second = tmp_path / "b" / "model.prism"
    for path in (first, second):
        path.parent.mkdir()
    text = CHAIN.read_text()
    first.write_text(text)
    second.write_text(text.replace("0.5:(s'=5) + 0.5:(s'=3)", "0.25:(s'=5) + 0.75:(s'=3)"))
    oracle_a = compute_oracle(OracleRequest(str(first)))
    oracle_b = compute_oracle(OracleRequest(str(second)))
    row_a = {"environment": str(first), "model_hash": oracle_a.model.content_hash}
    row_b = {"environment": str(second), "model_hash": oracle_b.model.content_hash}
    assert same_model(row_a, oracle_a) and same_model(row_b, oracle_b)
    assert not same_model(row_a, oracle_b)
    assert not same_model(row_b, oracle_a)
    assert not same_model(row_a, None)
    # The same bytes in a third folder are the same model.
    third = tmp_path / "c" / "model.prism"
    third.parent.mkdir()
    third.write_text(text)
    assert same_model(row_a, compute_oracle(OracleRequest(str(third))))


def test_the_report_frame_of_shown_rows_is_the_stored_results_frame(tmp_path):
    """The Report tab builds its frame from the window's rows; it must be the frame the CLI's
    report reads from the file (same columns, same values, same number types)."""
    import pandas as pd

    from explaincheck.core.cli.main import main
    from explaincheck.core.store import results_frame
    from explaincheck.gui.adapters.results_data import read_rows, rows_frame

    db = tmp_path / "r.sqlite"
    run = "run --env frozen_lake --llm random --categories satisfy,ranking --budget 4"
    assert main([*run.split(), "--db", str(db)]) == 0
    stored = results_frame(db)
    shown = rows_frame(read_rows(str(db)))
    assert len(stored) == 8 and stored["abs_error"].notna().any()
    assert shown["delta"].dtype == "float64" and shown["latency"].dtype == "float64"
    pd.testing.assert_frame_equal(shown, stored)

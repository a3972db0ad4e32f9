"""Rows belong to the open model by the stored model hash, not by file name."""

from __future__ import annotations

from pathlib import Path

from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.gui.results_data import same_model

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

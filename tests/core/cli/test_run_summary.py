"""The summary ``run`` prints at its end: an ``uncertain`` column appears only where a verdict
could flip inside the oracle's intervals, and the score leaves those executions out."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_store import record

from explaincheck.core.cli.run_command import _summary
from explaincheck.core.store import Store


def _begin(store: Store, planned: int) -> None:
    store.begin_campaign(
        identity="c",
        settings={},
        environment="frozen_lake",
        model_path="m.prism",
        model_hash="abc",
        constants="",
        planned=planned,
    )


def _plan(*keys: str) -> SimpleNamespace:
    return SimpleNamespace(executions=[SimpleNamespace(key=key) for key in keys])


def test_uncertain_verdicts_get_a_column_and_stay_out_of_the_score(tmp_path, capsys):
    with Store.open(tmp_path / "r.sqlite") as store:
        _begin(store, 4)
        for key, verdict in (("a", "pass"), ("b", "fail"), ("c", "uncertain"), ("d", "pass")):
            store.record(record(key, verdict))
        _summary(_plan("a", "b", "c", "d"), store)
    header, line = capsys.readouterr().out.splitlines()
    assert header.split()[-2:] == ["uncertain", "score"]
    assert line.split()[-6:] == ["2", "1", "0", "0", "1", "0.67"]  # 2 of 3 graded passed


def test_without_uncertain_verdicts_the_summary_keeps_its_columns(tmp_path, capsys):
    with Store.open(tmp_path / "r.sqlite") as store:
        _begin(store, 2)
        for key, verdict in (("a", "pass"), ("b", "invalid")):
            store.record(record(key, verdict))
        _summary(_plan("a", "b"), store)
    header, line = capsys.readouterr().out.splitlines()
    assert header.split() == ["llm", "category", "pass", "fail", "invalid", "error", "score"]
    assert line.split()[-5:] == ["1", "0", "1", "0", "0.50"]

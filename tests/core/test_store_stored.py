"""Rows read back as typed records: a ``StoredExecution`` is the ``ExecutionRecord`` that went
in plus the store's own fields, filtered as the dict reader filters, and a damaged row is one
``StoreError`` as there."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest
from test_store import record, store  # noqa: F401 - the fixture

from explaincheck.core.store import ExecutionRecord, Store, StoredExecution, StoreError


def test_a_stored_execution_is_the_record_that_went_in(store):  # noqa: F811 - the fixture
    first = record("k1", positive=True, reading=False, cached=True, gap=0.25)
    variant = record("k2", "fail", case_key="satisfy/prioritized/0/5~w2~m:swap", llm="random")
    store.record(first)
    store.record(variant)
    read = store.stored_executions()
    assert [type(r) for r in read] == [StoredExecution, StoredExecution]
    assert [r.record for r in read] == [first, variant]
    assert type(read[0].record) is ExecutionRecord and isinstance(read[0], ExecutionRecord)
    assert read[0].id < read[1].id and read[0].positive is True and read[0].reading is False
    assert (read[0].wording, read[0].family) == (0, "satisfy/prioritized/0/5")
    assert (read[1].wording, read[1].family) == (2, "satisfy/prioritized/0/5~w2")
    assert read[0].states == [5] and read[0].answer == {"probability": 0.5}


def test_the_typed_reader_filters_as_the_dict_reader(store):  # noqa: F811 - the fixture
    for index, (verdict, llm) in enumerate((("pass", "a"), ("fail", "b"), ("error", "a"))):
        store.record(record(f"k{index}", verdict, llm=llm))
    assert [r.exec_key for r in store.iter_stored(llm="a")] == ["k0", "k2"]
    assert [r.exec_key for r in store.iter_stored(verdict=("pass", "fail"))] == ["k0", "k1"]
    (row,) = store.stored_executions(verdict="fail")
    assert [r.exec_key for r in store.iter_stored(row_id=row.id)] == ["k1"]
    dicts = store.executions()
    assert [d["id"] for d in dicts] == [r.id for r in store.iter_stored()]


def test_a_stored_record_can_be_stored_again_elsewhere(store, tmp_path):  # noqa: F811 - the fixture
    store.record(record("k1"))
    (stored,) = store.stored_executions()
    with Store.open(tmp_path / "copy.sqlite") as copy:
        for identity in ("a", "b"):  # the copy's campaign gets another id
            campaign = copy.begin_campaign(
                identity=identity,
                settings={},
                environment="frozen_lake",
                model_path="m.prism",
                model_hash="abc",
                constants="",
                planned=1,
            )
        copy.record(replace(stored.record, campaign_id=campaign))
        (again,) = copy.stored_executions()
    assert campaign != stored.campaign_id
    assert again.record == replace(stored.record, campaign_id=campaign)


def test_a_damaged_row_is_one_store_error(store):  # noqa: F811 - the fixture
    store.record(record("k1"))
    db = sqlite3.connect(store.path)
    db.execute("UPDATE executions SET delta = 'far' WHERE exec_key = 'k1'")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=r"damaged: execution 1 has a str in 'delta'"):
        store.stored_executions()

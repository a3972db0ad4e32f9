"""A shared results file cannot run code on our writes: triggers, views and any schema object
the tool did not create are refused when the file is opened for writing."""

from __future__ import annotations

import sqlite3

import pytest
from test_store_hostile import filled, record

from explaincheck.core.store import Store, StoreError

WIPE = (
    "CREATE TRIGGER wipe AFTER INSERT ON executions BEGIN DELETE FROM executions"
    " WHERE id <> NEW.id; END"
)


def _plant(path, statement: str) -> None:
    db = sqlite3.connect(path)
    db.execute(statement)
    db.commit()
    db.close()


def test_a_planted_trigger_is_refused_before_any_write(tmp_path):
    path = filled(tmp_path / "shared.sqlite", rows=3)
    _plant(path, WIPE)
    with pytest.raises(StoreError) as caught:
        Store.open(path)
    message = str(caught.value)
    assert "trigger 'wipe'" in message
    assert "DROP TRIGGER" in message
    assert "\n" not in message
    with Store.open(path, readonly=True) as store:  # reading runs no trigger: still readable
        assert store.count() == 3


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE VIEW executions_view AS SELECT * FROM executions",
        "CREATE TABLE notes (text TEXT)",
        "CREATE INDEX by_llm ON executions(llm)",
    ],
    ids=["view", "table", "index"],
)
def test_any_foreign_object_is_refused(tmp_path, statement):
    path = filled(tmp_path / "shared.sqlite", rows=1)
    _plant(path, statement)
    with pytest.raises(StoreError, match="did not create"):
        Store.open(path)


def test_the_tools_own_file_opens_and_writes(tmp_path):
    path = filled(tmp_path / "own.sqlite", rows=2)
    with Store.open(path) as store:
        store.record(record("k9"))
        assert store.count() == 3


def test_the_tools_other_tables_are_its_own():
    from explaincheck.core.store import PROBE_TABLE
    from explaincheck.core.store.objects import EXTENSION_OBJECTS, own_objects

    created = {o for o in own_objects((PROBE_TABLE,)) if not o[1].startswith("sqlite_")}
    assert created <= EXTENSION_OBJECTS

"""NUL characters are not stored inside TEXT (C tools would show the value cut at the NUL)."""

from __future__ import annotations

import sqlite3

from test_store_hostile import filled, record

from explaincheck.core.store import Store


def test_a_nul_in_a_reply_is_stored_as_a_replacement_character(tmp_path):
    path = filled(tmp_path / "r.sqlite", rows=1)
    with Store.open(path) as store:
        store.record(record("nul", reply='{"probability": 0.5}\0 hidden tail', reason="a\0b"))
    with sqlite3.connect(path) as db:
        reply, reason, length = db.execute(
            "SELECT reply, reason, length(reply) FROM executions WHERE exec_key = 'nul'"
        ).fetchone()
    assert reply == '{"probability": 0.5}\ufffd hidden tail' and reason == "a\ufffdb"
    assert length == len(reply)  # SQLite's own length: the whole text, not up to a NUL

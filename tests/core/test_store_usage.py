"""Store schema v3: reasoning tokens and the structured-output mode per reply, in executions and
the reply cache; a v2 file is migrated in place (old rows: NULL and ''), and merge-side helpers
read and write the reply cache."""

from __future__ import annotations

import sqlite3

from test_store import record, store  # noqa: F401 - the fixture

from explaincheck.core.store import SCHEMA_VERSION, CachedReply, Store


def reply(hash_: str = "h1", **changes) -> CachedReply:
    values = dict(
        backend="openai",
        host="http://h:1/v1",
        model="m",
        request_hash=hash_,
        options={"seed": 0},
        text='{"probability": 0.5}',
        reasoning_tokens=12,
        output_mode="json_object",
    )
    return CachedReply(**{**values, **changes})


def test_usage_round_trips(store):  # noqa: F811 - the fixture
    store.record(record("a", reasoning_tokens=12, output_mode="json_object"), reply())
    row = store.executions()[0]
    assert (row["reasoning_tokens"], row["output_mode"]) == (12, "json_object")
    hit = store.cached_reply("openai", ["http://h:1/v1"], "m", "h1")
    assert hit == reply()
    store.put_replies([reply("h2", output_mode="text"), reply()])  # h1 kept once
    assert [r.request_hash for r in store.iter_replies()] == ["h1", "h2"]


def test_a_v2_file_is_migrated(store):  # noqa: F811 - the fixture
    path = store.path
    store.record(record("a"))
    store.close()
    db = sqlite3.connect(path)
    for table, column in (
        ("executions", "reasoning_tokens"),
        ("executions", "output_mode"),
        ("replies", "reasoning_tokens"),
        ("replies", "output_mode"),
        ("executions", "reading"),  # v3's columns: a v2 file has neither
        ("executions", "gap"),
        ("executions", "cached_prompt_tokens"),  # v6's
        ("replies", "cached_prompt_tokens"),
    ):
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with Store.open(path, readonly=True) as store:  # read through a migrated copy in memory
        assert store.executions()[0]["reasoning_tokens"] is None
    with sqlite3.connect(path) as untouched:  # reading wrote nothing
        assert untouched.execute("PRAGMA user_version").fetchone()[0] == 2
    with Store.open(path) as store:
        row = store.executions()[0]
        assert row["reasoning_tokens"] is None and row["output_mode"] == ""
        store.record(record("b", reasoning_tokens=3, output_mode="text"))
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
    assert db.execute("SELECT output_mode FROM executions ORDER BY id").fetchall() == [
        ("",),
        ("text",),
    ]

"""The result store: WAL, one commit per execution, resume rules, schema versions, the frame."""

from __future__ import annotations

import sqlite3

import pytest

from explaincheck.core.store import (
    APPLICATION_ID,
    RESULT_COLUMNS,
    SCHEMA_VERSION,
    CachedReply,
    ExecutionRecord,
    Store,
    StoreError,
    now,
    results_frame,
)


def record(key: str = "k1", verdict: str = "pass", **changes) -> ExecutionRecord:
    values = dict(
        exec_key=key,
        campaign_id=1,
        environment="frozen_lake",
        model_hash="abc",
        llm="ollama:gemma3:1b",
        category="satisfy",
        dimension="state",
        selection="prioritized",
        case_index=0,
        case_key="satisfy/prioritized/0/5",
        positive=None,
        states=[5],
        valuations=[{"x": 1, "y": 1}],
        delta=0.9,
        repeat=0,
        prompt="What is the probability?",
        schema={"type": "object"},
        options={"temperature": 0.0, "seed": 0},
        reply='{"probability": 0.5}',
        verdict=verdict,
        reason="|0.5 - 0.52| <= 0.05",
        grading={"satisfy_rule": "absolute", "satisfy_tolerance": 0.05},
        started_at=now(),
        finished_at=now(),
        answer={"probability": 0.5},
        expected={"probability": 0.52},
        abs_error=0.02,
        thinking="hmm",
        latency=1.5,
        prompt_tokens=100,
        completion_tokens=8,
    )
    values.update(changes)
    return ExecutionRecord(**values)


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "r.sqlite") as opened:
        opened.begin_campaign(
            identity="c",
            settings={"budget": 20},
            environment="frozen_lake",
            model_path="m.prism",
            model_hash="abc",
            constants="",
            planned=3,
        )
        yield opened


def test_new_file_is_marked_versioned_and_in_wal_mode(tmp_path):
    path = tmp_path / "r.sqlite"
    Store.open(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_record_round_trip_and_commit_visible_to_another_reader(store):
    store.record(record())
    other = sqlite3.connect(store.path)  # committed at once: a second connection sees it
    assert other.execute("SELECT COUNT(*) FROM executions").fetchone()[0] == 1
    (row,) = store.executions()
    assert row["states"] == [5] and row["valuations"] == [{"x": 1, "y": 1}]
    assert row["answer"] == {"probability": 0.5} and row["expected"] == {"probability": 0.52}
    assert row["options"] == {"temperature": 0.0, "seed": 0}
    assert row["thinking"] == "hmm" and row["abs_error"] == 0.02
    assert row["positive"] is None and row["cached"] is False


def test_error_rows_are_replaced_by_their_retry_finished_rows_never(store):
    store.record(record("k1", "error", reply=None, answer=None, error="no reply"))
    store.record(record("k1", "fail", attempts=2))
    store.record(record("k1", "pass", attempts=3))  # a finished row stays as it is
    (row,) = store.executions()
    assert row["verdict"] == "fail" and row["attempts"] == 2 and row["error"] is None
    assert store.stored() == {"k1": ("fail", 2)}


def test_filters(store):
    store.record(record("a", "pass"))
    store.record(record("b", "fail", category="ranking"))
    store.record(record("c", "invalid", answer=None))
    assert [r["exec_key"] for r in store.executions(verdict="fail")] == ["b"]
    assert [r["exec_key"] for r in store.executions(category="satisfy")] == ["a", "c"]
    assert store.count() == 3 and store.count("invalid") == 1


def test_reply_cache_matches_any_listed_host(store):
    reply = CachedReply("ollama", "http://a:11434", "gemma3:1b", "h1", {"seed": 0}, "{}")
    store.record(record(), reply)
    assert store.cached_reply("ollama", ["http://b:11434", "http://a:11434"], "gemma3:1b", "h1")
    assert store.cached_reply("ollama", ["http://b:11434"], "gemma3:1b", "h1") is None
    assert store.cached_reply("ollama", ["http://a:11434"], "gemma3:1b", "h2") is None


def test_campaign_is_found_again_by_identity(store):
    again = store.begin_campaign(
        identity="c",
        settings={},
        environment="frozen_lake",
        model_path="m.prism",
        model_hash="abc",
        constants="",
        planned=3,
    )
    assert again == 1 and len(store.campaigns()) == 1
    store.end_campaign(1, "finished")
    assert store.campaigns()[0].status == "finished"


def test_newer_schema_is_refused_clearly(tmp_path):
    path = tmp_path / "r.sqlite"
    Store.open(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match=r"written by a newer explaincheck .* upgrade"):
        Store.open(path)


def test_older_schema_is_migrated_or_refused(tmp_path, monkeypatch):
    import explaincheck.core.store as store_module

    path = tmp_path / "r.sqlite"
    Store.open(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 0")
    db.close()
    with pytest.raises(StoreError, match="schema v0, which this version cannot migrate"):
        Store.open(path)
    monkeypatch.setitem(store_module.MIGRATIONS, 0, "CREATE TABLE notes (text TEXT)")
    monkeypatch.setitem(store_module.MIGRATIONS, 1, "")  # the file already has v2's columns
    monkeypatch.setitem(store_module.MIGRATIONS, 2, "")  # ... and v3's
    monkeypatch.setitem(store_module.MIGRATIONS, 3, "")  # ... and v4's
    monkeypatch.setitem(store_module.MIGRATIONS, 4, "")  # ... and v5's keys
    monkeypatch.setitem(store_module.MIGRATIONS, 5, "")  # ... and v6's cached prompt tokens
    Store.open(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("SELECT COUNT(*) FROM notes").fetchone()[0] == 0


def test_v2_file_gains_reading_and_gap_unknown_for_old_rows(store):
    store.record(record("old"))
    path = store.path
    store.close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE executions DROP COLUMN reading")
    db.execute("ALTER TABLE executions DROP COLUMN gap")
    for table in ("executions", "replies"):  # v4's and v6's usage columns: a v2 file has none
        db.execute(f"ALTER TABLE {table} DROP COLUMN reasoning_tokens")
        db.execute(f"ALTER TABLE {table} DROP COLUMN output_mode")
        db.execute(f"ALTER TABLE {table} DROP COLUMN cached_prompt_tokens")
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with Store.open(path) as migrated:
        migrated.record(record("new", reading=True, gap=0.004))
        migrated.record(record("live", reading=False, gap=None))
        rows = {r["exec_key"].split("|")[0]: r for r in migrated.iter_executions()}
    assert (rows["old"]["reading"], rows["old"]["gap"]) == (None, None)  # unknown before v3
    assert (rows["new"]["reading"], rows["new"]["gap"]) == (True, 0.004)
    assert rows["live"]["reading"] is False
    frame = results_frame(path)
    assert list(frame["reading"]) == [None, True, False]


def test_foreign_files_are_refused(tmp_path):
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(StoreError, match="not an explaincheck results database"):
        Store.open(other)
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a database at all" * 100)
    with pytest.raises(StoreError, match="not a results database"):
        Store.open(text)
    with pytest.raises(StoreError, match="no results database"):
        Store.open(tmp_path / "missing.sqlite", create=False)


def test_results_frame_has_the_contract_columns(store):
    store.record(record("a"))
    store.record(record("b", "error", reply=None, answer=None, latency=None, abs_error=None))
    frame = results_frame(store.path)
    assert len(frame) == 2
    for column in (*RESULT_COLUMNS, "abs_error", "dimension", "latency", "thinking"):
        assert column in frame.columns
    assert frame.loc[0, "states"] == [5]
    assert frame.loc[0, "answer"] == {"probability": 0.5}
    assert frame["abs_error"].dtype == "float64" and frame["latency"].dtype == "float64"
    assert frame.loc[1, "verdict"] == "error"


def test_nothing_is_pickled(store):
    store.record(record())
    db = sqlite3.connect(store.path)
    for table in ("executions", "replies", "campaigns"):
        for column in db.execute(f"PRAGMA table_info({table})"):
            assert column[2] in ("INTEGER", "TEXT", "REAL"), (table, column)


def test_copy_reply_carries_every_reply_field_between_the_three_shapes():
    from dataclasses import asdict

    from explaincheck.core.backends.base import Reply
    from explaincheck.core.store import copy_reply

    sent = Reply("{}", "hmm", 1.5, 100, 8, host="http://h:1", cached=False)
    ids = dict(backend="ollama", model="m", request_hash="r", options={"seed": 0})
    entry = copy_reply(sent, CachedReply, **ids)
    assert entry == CachedReply(host="http://h:1", text="{}", thinking="hmm", latency=1.5,
                                prompt_tokens=100, completion_tokens=8, **ids)  # fmt: skip
    again = copy_reply(entry, Reply, cached=True)
    assert again == Reply("{}", "hmm", 1.5, 100, 8, host="http://h:1", cached=True)
    shape = {k: v for k, v in asdict(record()).items() if k not in Reply.__dataclass_fields__}
    shape.pop("reply")
    stored = copy_reply(again, ExecutionRecord, **shape)
    assert (stored.reply, stored.thinking, stored.latency) == ("{}", "hmm", 1.5)
    assert stored.host == "http://h:1"
    assert (stored.prompt_tokens, stored.completion_tokens, stored.cached) == (100, 8, True)
    back = copy_reply(stored, Reply)
    assert back == again
    failed = copy_reply(None, ExecutionRecord, **shape)
    assert failed.reply is None and failed.thinking == "" and failed.latency is None

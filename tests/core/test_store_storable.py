"""Whatever a server sent, an execution and its cached reply can be written and read back."""

from __future__ import annotations

import json

import pytest
from test_store import record

from explaincheck.core.store import CachedReply, Store, storable, storable_json


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
            planned=1,
        )
        yield opened


def test_hostile_values_are_stored_and_read_back(store, tmp_path):
    hostile = record(
        reply="answer \ud800 end",
        thinking="\udfff" * 3,
        reason="said \ud83d",
        answer={"probability": float("nan"), "k\ud800": ["\udc00"]},
        expected=float("inf"),
        abs_error=float("nan"),
        latency=float("inf"),
        prompt_tokens=10**29,
        completion_tokens=-(10**30),
        error="server said \ud800",
        host="h\ud800",
    )
    store.record(hostile)
    row = store.executions()[0]
    assert row["reply"] == "answer \ufffd end" and row["thinking"] == "\ufffd" * 3
    assert row["reason"] == "said \ufffd" and row["error"] == "server said \ufffd"
    assert row["answer"] == {"probability": None, "k\ufffd": ["\ufffd"]}
    assert row["expected"] is None and row["abs_error"] is None and row["latency"] is None
    assert row["prompt_tokens"] is None and row["completion_tokens"] is None
    with Store.open(tmp_path / "r.sqlite") as again:  # a rerun reads it back
        assert again.stored() == {"k1": ("pass", 1)}


def test_hostile_cached_replies_are_stored(store):
    entry = CachedReply(
        backend="ollama",
        host="http://h:1",
        model="m:latest",
        request_hash="r",
        options={"seed": float("nan")},
        text="\ud800",
        thinking="\udbff",
        latency=float("nan"),
        prompt_tokens=10**20,
        completion_tokens=3,
    )
    store.record(record(), entry)
    hit = store.cached_reply("ollama", ["http://h:1"], "m:latest", "r")
    assert hit is not None and hit.text == "\ufffd" and hit.thinking == "\ufffd"
    assert hit.options == {"seed": None} and hit.latency is None and hit.prompt_tokens is None
    assert hit.completion_tokens == 3


def test_storable_values():
    assert [storable(v) for v in (2**63 - 1, 2**63, -(2**63), True, 1.5, float("nan"))] == [
        2**63 - 1, None, -(2**63), 1, 1.5, None,
    ]  # fmt: skip
    assert json.dumps(storable_json({"a": (1, float("-inf")), 2: "\ud800"})) == json.dumps(
        {"a": [1, None], "2": "\ufffd"}
    )

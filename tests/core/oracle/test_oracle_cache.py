"""The on-disk oracle cache and the cancellable ``compute_oracle_async``."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import shutil
import time
from pathlib import Path

import pytest
from oracle_helpers import model

from explaincheck.core.oracle import compute_oracle, compute_oracle_async
from explaincheck.core.oracle.types import EXACT, OracleRequest


@pytest.fixture
def cache_folder(tmp_path, monkeypatch) -> Path:
    """A private, empty cache for one test."""
    monkeypatch.setenv("EXPLAINCHECK_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "oracle"


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json")) if folder.exists() else []


def values(result) -> list:
    return [(s.valuation, s.value, s.danger, s.q, s.bottleneck) for s in result.states]


def test_second_call_comes_from_the_cache(cache_folder):
    request = OracleRequest(model("chain"))
    first = compute_oracle(request)
    assert not first.from_cache and first.seconds > 0
    assert len(entries(cache_folder)) == 1
    second = compute_oracle(request)
    assert second.from_cache and second.seconds == 0.0
    assert values(second) == values(first)
    assert second.states == first.states
    assert second.model == first.model


def test_corrupt_cache_entry_is_ignored(cache_folder):
    request = OracleRequest(model("tie"))
    first = compute_oracle(request)
    (entry,) = entries(cache_folder)
    for garbage in ("{not json", json.dumps({"format": 1, "states": []})):
        entry.write_text(garbage)
        again = compute_oracle(request)
        assert not again.from_cache
        assert values(again) == values(first)
        assert compute_oracle(request).from_cache  # rewritten with a good entry


def test_cache_key_covers_content_constants_and_labels(cache_folder, tmp_path):
    n3 = compute_oracle(OracleRequest(model("gambler"), constants="N=3"))
    n4 = compute_oracle(OracleRequest(model("gambler"), constants="N=4"))
    assert not n4.from_cache and n3.model.states != n4.model.states
    other_goal = compute_oracle(
        OracleRequest(model("gambler"), constants="N=3", goal_label="unsafe")
    )
    assert not other_goal.from_cache and other_goal.initial.value_exact == "1"  # quit
    copy = tmp_path / "copy.prism"
    shutil.copy(model("gambler"), copy)
    copied = compute_oracle(OracleRequest(str(copy), constants="N=3"))
    assert copied.from_cache and copied.model.path == str(copy)  # same content, named as asked
    copy.write_text(copy.read_text().replace("2/5", "1/2"))
    edited = compute_oracle(OracleRequest(str(copy), constants="N=3"))
    assert not edited.from_cache and edited.initial.value == pytest.approx(1 / 3)
    assert len(entries(cache_folder)) == 4


def test_use_cache_false_neither_reads_nor_writes(cache_folder):
    result = compute_oracle(OracleRequest(model("die")), use_cache=False)
    assert not result.from_cache and entries(cache_folder) == []


def test_async_result_and_cache(cache_folder):
    request = OracleRequest(model("dead_end"))
    first = asyncio.run(compute_oracle_async(request))
    second = asyncio.run(compute_oracle_async(request))
    assert not first.from_cache and second.from_cache
    assert values(first) == values(second)


def test_async_can_be_cancelled(cache_folder, gridworld):
    request = OracleRequest(gridworld(30), method=EXACT)  # takes >10 s

    async def cancel_soon() -> None:
        task = asyncio.create_task(compute_oracle_async(request))
        await asyncio.sleep(1.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_soon())
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []  # the child was killed, not left running
    assert entries(cache_folder) == []

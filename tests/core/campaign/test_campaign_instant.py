"""Instant answerers (random, oracle) yield to the event loop per answer: their results are
committed as others' are, a cancel acts at once, and a run never calls itself finished when the
file lost rows under it."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from support.campaign_fakes import synthetic_plan, toy_grade

from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.campaign.runner import CampaignRunner
from explaincheck.core.store import Store, StoreError


class InstantBackend(Backend):
    """Answers without ever suspending, like the random and oracle answerers."""

    spec = "fake"
    concurrency = 4

    async def answer(self, prompt, case) -> Reply:
        return Reply('{"answer": "yes"}', latency=0.0, host="instant")


def test_instant_answers_are_committed_as_they_come(tmp_path):
    plan = synthetic_plan(cases_per_category=20, repeat=2)  # 120 executions
    with Store.open(tmp_path / "r.sqlite") as store:
        statements: list[str] = []
        store._db.set_trace_callback(statements.append)
        outcome = asyncio.run(
            CampaignRunner(plan, store, {"fake": InstantBackend()}, grade=toy_grade).run()
        )
        store._db.set_trace_callback(None)
        assert outcome.complete and store.count() == 120
    commits = sum(s.strip().upper() == "COMMIT" for s in statements)
    # a commit every loop turn or two, with at most one answer per worker (4) in a turn;
    # before, the whole run was one transaction (3 commits: begin, the executions, end)
    assert commits >= 120 // 8, commits


def test_a_cancel_stops_an_instant_answerer_at_once(tmp_path):
    plan = synthetic_plan(cases_per_category=500, repeat=2)  # 3,000 executions

    async def run(store: Store):
        runner = CampaignRunner(plan, store, {"fake": InstantBackend()}, grade=toy_grade)
        asyncio.get_running_loop().call_later(0.2, runner.cancel)
        return await runner.run()

    with Store.open(tmp_path / "r.sqlite") as store:
        outcome = asyncio.run(run(store))
        assert outcome.progress.state == "cancelled"
        assert 0 < outcome.progress.done < plan.total
        assert store.count() == outcome.progress.done  # what was counted was committed


def test_rows_lost_during_the_run_are_not_called_finished(tmp_path):
    path = tmp_path / "r.sqlite"
    plan = synthetic_plan(cases_per_category=5)
    with Store.open(path) as store:
        other = sqlite3.connect(path)  # another writer plants a trigger once the file is open
        other.execute(
            "CREATE TRIGGER wipe AFTER INSERT ON executions BEGIN"
            " DELETE FROM executions WHERE id <> NEW.id; END"
        )
        other.commit()
        other.close()
        runner = CampaignRunner(plan, store, {"fake": InstantBackend()}, grade=toy_grade)
        with pytest.raises(StoreError, match="missing from the file after the run"):
            asyncio.run(runner.run())
        assert store.campaigns()[-1].status == "incomplete"

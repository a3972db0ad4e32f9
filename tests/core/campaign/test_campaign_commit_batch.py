"""The runner commits each execution on the next turn of the event loop (those finishing in the
same turn share a commit): every result is visible at once, and a killed run loses nothing
committed and resumes to a complete, duplicate-free store."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from support.campaign_fakes import ScriptedBackend, synthetic_plan, toy_grade

from explaincheck.core.campaign.progress import ProgressEvents
from explaincheck.core.campaign.runner import COMMIT_INTERVAL, CampaignRunner
from explaincheck.core.store import Store

TESTS = Path(__file__).resolve().parents[2]

# A campaign of 300 executions at 20 ms each, one in flight: 6 s, long enough to be killed.
CHILD = """
import asyncio, sys
from explaincheck.core.campaign.runner import CampaignRunner
from explaincheck.core.store import Store
from support.campaign_fakes import ScriptedBackend, synthetic_plan, toy_grade

plan = synthetic_plan(cases_per_category=25, repeat=4)
with Store.open(sys.argv[1]) as store:
    runner = CampaignRunner(
        plan, store, {"fake": ScriptedBackend(delay=0.02, concurrency=1)}, grade=toy_grade
    )
    print("started", flush=True)
    asyncio.run(runner.run())
"""


def test_executions_finishing_in_one_loop_turn_share_a_commit(tmp_path):
    plan = synthetic_plan(cases_per_category=10, repeat=2)
    with Store.open(tmp_path / "r.sqlite") as store:
        statements: list[str] = []
        store._db.set_trace_callback(statements.append)
        runner = CampaignRunner(
            plan, store, {"fake": ScriptedBackend(delay=0.001)}, grade=toy_grade
        )
        outcome = asyncio.run(runner.run())
        store._db.set_trace_callback(None)
        assert outcome.complete and store.count() == plan.total == 60
    commits = sum(s.strip().upper() == "COMMIT" for s in statements)
    inserts = sum(s.lstrip().upper().startswith("INSERT INTO EXECUTIONS") for s in statements)
    assert inserts == 60
    # begin_campaign and end_campaign commit on their own; no execution waits for a later one
    # (at most one commit each), and workers that finish in the same turn share one
    assert 3 <= commits < inserts + 2, commits


def test_each_result_is_visible_to_readers_within_the_interval(tmp_path):
    path = tmp_path / "r.sqlite"
    plan = synthetic_plan(cases_per_category=2)  # 6 executions, one every 0.4 s
    events = ProgressEvents()
    reported: list[float] = []
    events.subscribe(lambda p: reported.append(time.monotonic()) if p.last else None)
    seen: list[float] = []
    stop = threading.Event()

    def watch() -> None:
        with Store.open(path, readonly=True) as reader:
            count = 0
            while not stop.is_set():
                now = reader.count()
                seen.extend([time.monotonic()] * (now - count))
                count = now
                time.sleep(0.01)

    with Store.open(path) as store:
        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            backend = ScriptedBackend(delay=0.4, concurrency=1)
            runner = CampaignRunner(plan, store, {"fake": backend}, grade=toy_grade, events=events)
            asyncio.run(runner.run())
            time.sleep(0.1)
        finally:
            stop.set()
            watcher.join()
    assert len(reported) == len(seen) == 6
    delays = [b - a for a, b in zip(reported, seen, strict=True)]
    assert max(delays) < COMMIT_INTERVAL + 0.15, delays


def test_a_killed_run_keeps_what_was_committed_and_resumes(tmp_path):
    path = tmp_path / "r.sqlite"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), str(TESTS)]))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 60
        committed = 0
        while committed < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
            if path.exists():
                with Store.open(path, readonly=True) as reader:
                    committed = reader.count()
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(30)
    plan = synthetic_plan(cases_per_category=25, repeat=4)
    assert 40 <= committed < plan.total == 300, "the run should be killed half way"
    with Store.open(path) as store:
        kept = store.count()
        assert kept >= committed  # nothing committed is lost
        backend = ScriptedBackend(delay=0.0)
        runner = CampaignRunner(plan, store, {"fake": backend}, grade=toy_grade)
        outcome = asyncio.run(runner.run())
        assert outcome.complete and outcome.progress.resumed == kept
        assert backend.calls == 300 - kept  # only what was not stored is asked again
        keys = [row["exec_key"] for row in store.iter_executions()]
        assert len(keys) == len(set(keys)) == 300

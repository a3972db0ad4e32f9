"""The campaign runner on hand-made plans: storing, progress, caps, cancel, resume, errors,
the reply cache (over real HTTP to the stand-in Ollama server) and re-grading."""

from __future__ import annotations

import asyncio
import json

import pytest
from support.campaign_fakes import ScriptedBackend, synthetic_plan, toy_grade
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends.ollama_backend import OllamaBackend
from explaincheck.core.backends.ollama_hosts import HostPool
from explaincheck.core.campaign.progress import Progress, ProgressEvents
from explaincheck.core.campaign.regrade import regrade
from explaincheck.core.campaign.runner import CampaignRunner
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import FAIL, PASS, Grade, GradingSettings


def run(plan, store, backends, *, events=None, **kwargs):
    runner = CampaignRunner(plan, store, backends, grade=toy_grade, events=events, **kwargs)
    return runner, asyncio.run(runner.run())


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "r.sqlite") as opened:
        yield opened


def test_every_planned_execution_is_graded_and_stored(store):
    plan = synthetic_plan(cases_per_category=4, repeat=2)
    events: list[Progress] = []
    bus = ProgressEvents()
    bus.subscribe(events.append)
    _, outcome = run(plan, store, {"fake": ScriptedBackend(delay=0.005)}, events=bus)
    assert plan.total == 24
    assert outcome.complete and outcome.progress.state == "finished"
    assert store.count() == 24 and store.count(PASS) == 24
    assert events[0].total == 24 and events[0].done == 0
    assert [e.done for e in events[1:-1]] == list(range(1, 25))
    assert events[-1].pass_rate == 1.0 and events[-1].eta == 0 and events[-1].rate > 0
    assert store.campaigns()[0].status == "finished" and store.campaigns()[0].planned == 24
    row = store.executions()[0]
    assert row["environment"] == "toy" and row["prompt"] and row["schema"]["type"] == "object"
    assert row["grading"] == {"satisfy_rule": "absolute", "satisfy_tolerance": 0.05}


def test_per_backend_concurrency_cap(store):
    plan = synthetic_plan(llms=("a", "b"), cases_per_category=10)
    a = ScriptedBackend(spec="a", delay=0.01, concurrency=3)
    b = ScriptedBackend(spec="b", delay=0.01, concurrency=1)
    run(plan, store, {"a": a, "b": b})
    assert a.max_in_flight == 3 and b.max_in_flight == 1
    assert store.count() == 60


def test_cancel_keeps_what_finished_and_the_same_plan_resumes(store):
    plan = synthetic_plan(cases_per_category=10)
    backend = ScriptedBackend(delay=0.01, concurrency=2)
    bus = ProgressEvents()
    holder: dict[str, CampaignRunner] = {}
    bus.subscribe(lambda p: p.done >= 7 and holder["runner"].cancel())
    runner = CampaignRunner(plan, store, {"fake": backend}, grade=toy_grade, events=bus)
    holder["runner"] = runner
    outcome = asyncio.run(runner.run())
    assert outcome.progress.state == "cancelled" and not outcome.complete
    kept = store.count()
    assert kept == outcome.progress.done and 7 <= kept < plan.total
    assert store.campaigns()[0].status == "cancelled"

    again = ScriptedBackend(delay=0.001)
    _, outcome = run(plan, store, {"fake": again})
    assert outcome.complete and outcome.progress.resumed == kept
    assert again.calls == plan.total - kept  # finished executions are not repeated
    assert store.count() == plan.total  # nothing duplicated
    assert len(store.campaigns()) == 1 and store.campaigns()[0].status == "finished"


def test_errors_are_stored_then_retried_on_resume(store):
    plan = synthetic_plan(cases_per_category=2)
    _, outcome = run(plan, store, {"fake": ScriptedBackend(fail=True)}, max_consecutive_errors=99)
    assert not outcome.complete and outcome.progress.errors == plan.total
    assert store.count("error") == plan.total
    row = store.executions()[0]
    assert row["reply"] is None and row["reason"] == "scripted failure"

    _, outcome = run(plan, store, {"fake": ScriptedBackend()})
    assert outcome.complete and store.count(PASS) == plan.total and store.count() == plan.total
    assert {r["attempts"] for r in store.executions()} == {2}


def test_a_backend_failing_again_and_again_is_given_up_others_go_on(store):
    plan = synthetic_plan(llms=("bad", "good"), cases_per_category=5)
    bad = ScriptedBackend(spec="bad", fail=True, concurrency=1)
    good = ScriptedBackend(spec="good", concurrency=1)
    _, outcome = run(plan, store, {"bad": bad, "good": good}, max_consecutive_errors=3)
    assert bad.calls == 3 and good.calls == 15
    assert "stopped asking bad after 3 errors in a row" in outcome.stopped["bad"]
    assert outcome.progress.state == "stopped"
    assert store.count("error") == 3 and store.count(PASS) == 15


def test_invalid_and_failed_replies_count_as_not_passed(store):
    plan = synthetic_plan(llms=("no", "junk"), cases_per_category=1)
    backends = {
        "no": ScriptedBackend(spec="no", reply='{"answer": "no"}'),
        "junk": ScriptedBackend(spec="junk", reply="I think yes"),
    }
    _, outcome = run(plan, store, backends)
    assert outcome.progress.failed == 3 and outcome.progress.invalid == 3
    assert outcome.progress.pass_rate == 0.0


def ollama_backend(url: str, spec: str = "ollama:gemma3:1b") -> tuple[OllamaBackend, HostPool]:
    pool = HostPool([url], capacity=4, timeout=5, pause=0.02)
    backend = OllamaBackend("gemma3:1b", pool, retries=1)
    backend.spec = spec
    return backend, pool


def run_ollama(plan, store, url, **kwargs):
    async def go():
        backend, pool = ollama_backend(url)
        runner = CampaignRunner(
            plan, store, {"ollama:gemma3:1b": backend}, grade=toy_grade, **kwargs
        )
        try:
            return await runner.run()
        finally:
            await pool.close()

    return asyncio.run(go())


def test_identical_requests_are_sent_once(store):
    plan = synthetic_plan(llms=("ollama:gemma3:1b",), cases_per_category=4, same_prompt=True)
    with StandinOllama({"gemma3:1b": Script(delay=0.05)}) as server:
        outcome = run_ollama(plan, store, server.url)
        assert outcome.complete
        assert len(server.chats()) == 1  # 12 executions, one prompt, one request
    rows = store.executions()
    assert len(rows) == 12 and sum(r["cached"] for r in rows) == 11
    assert all(json.loads(r["reply"]) == {"answer": "yes"} for r in rows)
    assert {r["host"] for r in rows} == {server.url}


def test_reply_cache_spans_campaigns_in_the_same_database(store):
    small = synthetic_plan(llms=("ollama:gemma3:1b",), cases_per_category=2)
    large = synthetic_plan(llms=("ollama:gemma3:1b",), cases_per_category=3)
    with StandinOllama({"gemma3:1b": Script()}) as server:
        run_ollama(small, store, server.url)
        assert len(server.chats()) == 6
        run_ollama(large, store, server.url)
        assert len(server.chats()) == 9  # only the 3 new prompts were sent
    # each campaign stores its own rows (6 + 9); the 6 it shares are answered from the cache
    assert store.count() == 15 and len(store.campaigns()) == 2
    large_rows = [r for r in store.executions() if r["campaign_id"] == 2]
    assert len(large_rows) == 9 and sum(r["cached"] for r in large_rows) == 6


def test_ollama_failures_become_error_rows_and_are_retried(store):
    plan = synthetic_plan(llms=("ollama:gemma3:1b",), cases_per_category=2)
    with StandinOllama({"gemma3:1b": Script(mode="http500")}) as server:
        outcome = run_ollama(plan, store, server.url, max_consecutive_errors=99)
        assert outcome.progress.errors == 6
        assert "HTTP 500" in store.executions()[0]["reason"]
        server.models["gemma3:1b"].mode = "prose"
        outcome = run_ollama(plan, store, server.url)
        assert outcome.complete
    assert store.count("error") == 0 and store.count() == 6
    assert store.executions()[0]["reply"].startswith("Sure! Here is my answer")


def test_thinking_is_stored_apart(store):
    plan = synthetic_plan(llms=("ollama:gemma3:1b",), cases_per_category=1)
    with StandinOllama({"gemma3:1b": Script(mode="thinking")}) as server:
        run_ollama(plan, store, server.url)
    row = store.executions()[0]
    assert row["thinking"].startswith("Let me think") and json.loads(row["reply"])
    assert row["options"]["temperature"] == 0 and row["options"]["num_ctx"] >= 8192
    assert row["prompt_tokens"] and row["completion_tokens"] and row["latency"] > 0


def test_regrade_changes_verdicts_without_any_llm(store):
    plan = synthetic_plan(cases_per_category=2)
    backend = ScriptedBackend(reply='{"answer": "no"}')
    run(plan, store, {"fake": backend})
    assert store.count(FAIL) == 6

    def lenient(case, text, oracle, settings):
        verdict = PASS if settings.satisfy_tolerance > 0.5 else FAIL
        return Grade(verdict, f"tolerance {settings.satisfy_tolerance}", json.loads(text), "yes")

    summary = regrade(
        store.path,
        GradingSettings(satisfy_tolerance=0.6),
        oracles={plan.model_hash: plan.oracle},
        grade=lenient,
    )
    assert summary.graded == 6 and summary.changed == 6
    assert store.count(PASS) == 6 and backend.calls == 6
    assert store.executions()[0]["grading"]["satisfy_tolerance"] == 0.6


def test_a_store_failure_stops_the_run_loudly(store, monkeypatch):
    from explaincheck.core.store import StoreError

    plan = synthetic_plan(cases_per_category=5)
    real_record = store.record
    writes = []

    def failing_record(record, reply=None):
        if len(writes) == 4:
            raise StoreError(f"cannot write to {store.path}: database or disk is full")
        writes.append(record)
        real_record(record, reply)

    monkeypatch.setattr(store, "record", failing_record)
    with pytest.raises(StoreError, match="disk is full"):
        run(plan, store, {"fake": ScriptedBackend(delay=0.002, concurrency=2)})
    assert store.count() == 4


def test_cancelling_the_task_that_runs_the_campaign_is_a_clean_stop(store):
    plan = synthetic_plan(cases_per_category=10)
    runner = CampaignRunner(
        plan, store, {"fake": ScriptedBackend(delay=0.01, concurrency=2)}, grade=toy_grade
    )

    async def go():
        task = asyncio.create_task(runner.run())
        while store.count() < 5:
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert 5 <= store.count() < plan.total
    assert store.campaigns()[0].status == "cancelled"


def test_cancel_from_another_thread_even_before_the_run_starts(store):
    plan = synthetic_plan(cases_per_category=3)
    runner = CampaignRunner(plan, store, {"fake": ScriptedBackend()}, grade=toy_grade)
    runner.cancel_threadsafe()  # the GUI's Stop, pressed before the worker's loop runs
    outcome = asyncio.run(runner.run())
    assert outcome.progress.state == "cancelled" and store.count() == 0


def test_api_key_never_reaches_the_database_or_logs(store, monkeypatch, caplog):
    monkeypatch.setenv("OLLAMA_API_KEY", "sk-never-store-me")
    plan = synthetic_plan(llms=("ollama:gemma3:1b",), cases_per_category=2)
    with (
        caplog.at_level("DEBUG"),
        StandinOllama({"gemma3:1b": Script(fail_first=2, failure="drop")}) as server,
    ):
        assert run_ollama(plan, store, server.url).complete
        sent = [{k.lower(): v for k, v in r["headers"].items()} for r in server.requests]
        sent = [headers.get("authorization") for headers in sent]
    assert "Bearer sk-never-store-me" in sent  # it is used ...
    store.close()
    for path in store.path.parent.glob("r.sqlite*"):
        assert b"sk-never-store-me" not in path.read_bytes()  # ... never stored
    assert "sk-never-store-me" not in caplog.text  # ... nor logged

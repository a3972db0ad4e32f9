"""Nothing a server sends can stop a campaign, and each LLM gets its own replies.

Everything goes through the real runner, the official client over real HTTP to the stand-in
Ollama server, and a real SQLite store; the frozen_lake cases use the real parser and grader.
"""

from __future__ import annotations

import asyncio
import hashlib
import json

import pytest
from support.campaign_fakes import synthetic_plan, toy_grade
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends.base import MAX_REPLY_CHARS
from explaincheck.core.backends.llm import Decoding
from explaincheck.core.backends.registry import BackendContext, create_backend
from explaincheck.core.campaign.plan import Campaign, Plan, plan_campaign
from explaincheck.core.campaign.runner import CampaignRunner
from explaincheck.core.store import Store, to_json

SPEC = "ollama:gemma3:1b"


@pytest.fixture(scope="module")
def lake() -> Plan:
    """Two satisfy cases on frozen_lake: real prompts, real grading."""
    return plan_campaign(Campaign("frozen_lake", (SPEC,), ("satisfy",), budget=2))


def run(plan: Plan, db, url: str, *, grade=None, timeout: float = 10, retries: int = 1):
    async def go():
        context = BackendContext(
            oracle=plan.oracle,
            environment=plan.environment,
            decoding=Decoding(),
            timeout=timeout,
            ollama_hosts=(url,),
            pause=0.02,
            retries=retries,
        )
        backends = {spec: create_backend(spec, context) for spec in plan.campaign.llms}
        try:
            with Store.open(db) as store:
                runner = CampaignRunner(
                    plan, store, backends, grade=grade, max_consecutive_errors=999
                )
                return await runner.run()
        finally:
            await context.close()

    return asyncio.run(go())


def rows(db) -> list[dict]:
    with Store.open(db) as store:
        return store.executions()


def cached_texts(db) -> list[str]:
    with Store.open(db) as store:
        return [r[0] for r in store._db.execute("SELECT text FROM replies")]


# -- each LLM spec gets its own replies --------------------------------------------------------


def by_model(request: dict) -> str:
    return json.dumps({"answer": "yes" if request["model"].split(":")[0] == "a" else "no"})


def test_two_models_each_store_their_own_replies(tmp_path):
    plan = synthetic_plan(llms=("ollama:a", "ollama:b"), cases_per_category=4)
    db = tmp_path / "two.sqlite"
    models = {"a:latest": Script(delay=0.02), "b:latest": Script(delay=0.02)}
    with StandinOllama(models, answer=by_model) as server:
        outcome = run(plan, db, server.url, grade=toy_grade)
        assert outcome.complete
        assert len(server.chats()) == plan.total == 24  # one request per execution
        asked = {(c["model"], c["messages"][0]["content"]) for c in server.chats()}
        assert len(asked) == 24
        stored = rows(db)
        assert {r["llm"] for r in stored} == {"ollama:a", "ollama:b"}
        for row in stored:
            want = "yes" if row["llm"] == "ollama:a" else "no"
            assert json.loads(row["reply"]) == {"answer": want}, row["llm"]
            assert not row["cached"]
        assert sum(r["verdict"] == "pass" for r in stored) == 12  # a passes, b fails
        # Asked again in the same database: every reply comes from the cache, still per model.
        with Store.open(db) as store:
            store._db.execute("DELETE FROM executions")
        again = synthetic_plan(llms=("ollama:b", "ollama:a"), cases_per_category=4)
        run(again, db, server.url, grade=toy_grade)
        assert len(server.chats()) == 24
    for row in rows(db):
        want = "yes" if row["llm"] == "ollama:a" else "no"
        assert row["cached"] and json.loads(row["reply"]) == {"answer": want}


def test_replies_cached_under_the_old_key_format_are_never_served(tmp_path):
    plan = synthetic_plan(llms=("ollama:b",), cases_per_category=1)
    db = tmp_path / "old.sqlite"
    options = {"temperature": 0.0, "seed": 0, "num_ctx": 8192, "num_predict": 256}
    with StandinOllama({"b:latest": Script()}, answer=by_model) as server:
        with Store.open(db) as store:  # what version 1 stored: a hash of prompt, schema, options
            for execution in plan.executions:
                prompt = execution.prompt
                old = to_json({"prompt": prompt.text, "schema": prompt.schema, "options": options})
                store._db.execute(
                    "INSERT INTO replies VALUES ('ollama', ?, 'b:latest', ?, ?, ?, '', 0, 1, 1,"
                    " '', NULL, '', NULL)",  # v4's reasoning_tokens, output_mode; v6's cached
                    (
                        server.url,
                        hashlib.sha256(old.encode()).hexdigest(),
                        to_json(options),
                        '{"answer": "stale"}',
                    ),
                )
        run(plan, db, server.url, grade=toy_grade)
        assert len(server.chats()) == plan.total
        assert server.chats()[0]["options"] == options  # the same request as version 1's
    assert all(json.loads(r["reply"]) == {"answer": "no"} for r in rows(db))


# -- hostile reply content ----------------------------------------------------------------------


def test_lone_surrogate_is_stored_and_a_rerun_does_not_crash(lake, tmp_path):
    db = tmp_path / "s.sqlite"
    answer = lambda request: '{"probability": 0.5} \ud800 tail'  # noqa: E731
    with StandinOllama({"gemma3:1b": Script()}, answer=answer) as server:
        assert run(lake, db, server.url).complete
        assert run(lake, db, server.url).complete  # the rerun reads the rows back
        assert len(server.chats()) == lake.total
    stored = rows(db)
    assert len(stored) == lake.total
    assert all("\ufffd tail" in r["reply"] for r in stored)
    assert {r["verdict"] for r in stored} <= {"pass", "fail"}
    assert all("\ufffd" in t for t in cached_texts(db))


@pytest.mark.parametrize("count", [10**29, 1e29, -5, 2.5])
def test_absurd_token_counts_never_stop_the_run(lake, tmp_path, count):
    db = tmp_path / "t.sqlite"
    script = Script(fields={"prompt_eval_count": count, "eval_count": count})
    with StandinOllama({"gemma3:1b": script}) as server:
        run(lake, db, server.url)
        run(lake, db, server.url)  # a rerun retries what failed, without crashing
    stored = rows(db)
    assert len(stored) == lake.total
    for row in stored:
        assert row["prompt_tokens"] is None and row["completion_tokens"] is None
        if row["verdict"] == "error":  # the client itself refused the response
            assert "malformed" in row["reason"]


def test_thousands_of_think_tags_are_cut_and_graded(lake, tmp_path):
    db = tmp_path / "k.sqlite"
    answer = lambda request: "<think>" * 60_000 + '{"probability": 0.5}'  # noqa: E731
    with StandinOllama({"gemma3:1b": Script()}, answer=answer) as server:
        assert run(lake, db, server.url).complete
    for row in rows(db):
        assert len(row["reply"]) < MAX_REPLY_CHARS + 100
        assert row["reply"].endswith(f"cut after {MAX_REPLY_CHARS} of 420020 characters]")
        assert row["verdict"] in ("invalid", "fail", "pass")
        assert "reply cut: 420020 characters" in row["reason"]


def test_a_20_mb_reply_is_capped_and_stored_once(lake, tmp_path):
    db = tmp_path / "big.sqlite"
    huge = '{"probability": 0.5}' + "x" * 20_000_000
    with StandinOllama({"gemma3:1b": Script()}, answer=lambda request: huge) as server:
        assert run(lake, db, server.url).complete
    stored = rows(db)
    assert all(r["reply"].startswith('{"probability": 0.5}xxx') for r in stored)
    assert all(len(r["reply"]) < MAX_REPLY_CHARS + 100 for r in stored)
    assert all("reply cut: 20000020 characters" in r["reason"] for r in stored)
    assert cached_texts(db) == []  # the cut text lives in its execution only
    size = sum(p.stat().st_size for p in tmp_path.glob("big.sqlite*"))
    assert size < 2 * lake.total * MAX_REPLY_CHARS


@pytest.mark.parametrize(
    "show",
    [
        '{"capabilities": ["completion"]}',
        '{"model_info": {"gemma3.context_length": "abc"}}',
        '{"model_info": {"gemma3.context_length": 1e999}}',
        '{"model_info": {"gemma3.context_length": -3}, "capabilities": "thinking"}',
        '{"model_info": [1, 2]}',
        "not json at all",
    ],
)
def test_malformed_show_is_only_a_warning(lake, tmp_path, show):
    db = tmp_path / "show.sqlite"
    with StandinOllama({"gemma3:1b": Script(show_body=show)}) as server:
        outcome = run(lake, db, server.url)
    assert outcome.complete
    assert all(r["options"]["num_ctx"] == 8192 for r in rows(db))


@pytest.mark.parametrize(
    "fields", [{"message": "not a message"}, {"message": {"role": "assistant", "content": 7}}]
)
def test_malformed_chat_reply_is_an_error_row_with_its_reason(lake, tmp_path, fields):
    db = tmp_path / "m.sqlite"
    with StandinOllama({"gemma3:1b": Script(fields=fields)}) as server:
        outcome = run(lake, db, server.url)
        assert outcome.progress.errors == lake.total
        run(lake, db, server.url)  # and a rerun does not crash either
    for row in rows(db):
        assert row["verdict"] == "error" and "malformed" in row["reason"]


# -- timeouts ------------------------------------------------------------------------------------


def test_timeouts_are_retried_within_the_retries(tmp_path):
    plan = synthetic_plan(llms=(SPEC,), cases_per_category=9)
    db = tmp_path / "slow.sqlite"
    with StandinOllama({"gemma3:1b": Script(slow_every=11)}) as server:
        outcome = run(plan, db, server.url, grade=toy_grade, timeout=0.5, retries=2)
        assert len(server.chats()) > plan.total  # the slow ones were asked again
    assert plan.total == 27 and outcome.complete
    with Store.open(db) as store:
        assert store.count("error") == 0 and store.count() == 27


def test_a_reply_the_database_refuses_becomes_an_error_row(tmp_path, monkeypatch):
    """A value no cleaning foresaw: the row is stored as ``error`` with the reason, the
    campaign goes on, and the next run asks again."""
    from support.campaign_fakes import ScriptedBackend

    from explaincheck.core.store.executions import ExecutionTable

    real_write = ExecutionTable._write_record

    def refusing(self, values, reply):
        if values["reply"] and "refuse me" in values["reply"]:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        return real_write(self, values, reply)

    monkeypatch.setattr(ExecutionTable, "_write_record", refusing)
    plan = synthetic_plan(cases_per_category=2)
    backend = ScriptedBackend(reply='{"answer": "yes", "note": "refuse me"}')
    with Store.open(tmp_path / "r.sqlite") as store:
        outcome = asyncio.run(CampaignRunner(plan, store, {"fake": backend}, grade=toy_grade).run())
        assert outcome.progress.errors == plan.total
        assert {r["verdict"] for r in store.executions()} == {"error"}
        assert "could not be stored (OverflowError)" in store.executions()[0]["reason"]
        backend.reply = '{"answer": "yes"}'
        outcome = asyncio.run(CampaignRunner(plan, store, {"fake": backend}, grade=toy_grade).run())
        assert outcome.complete and store.count("pass") == plan.total

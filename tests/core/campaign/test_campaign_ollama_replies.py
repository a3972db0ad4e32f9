"""Scripted Ollama replies through the whole pipeline on frozen_lake: plan, real prompts, the
official client over HTTP, the real parser and grader, the store; and re-grading stored replies.

The stand-in answers every prompt with the oracle's own answer, wrapped as each script says, so
the verdicts show what the parser accepts (fences, prose, thinking) and what it does not.
"""

from __future__ import annotations

import asyncio

import pytest
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends.llm import Decoding
from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.registry import BackendContext, create_backend
from explaincheck.core.campaign.plan import Campaign, Plan, plan_campaign
from explaincheck.core.campaign.regrade import regrade
from explaincheck.core.campaign.runner import CampaignRunner
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import GradingSettings

SPEC = "ollama:gemma3:1b"
CATEGORIES = ("satisfy", "best_action", "ranking", "subset_dead_end", "safer")


@pytest.fixture(scope="module")
def plan() -> Plan:
    return plan_campaign(Campaign("frozen_lake", (SPEC,), CATEGORIES, budget=3))


def oracle_answers(plan: Plan):
    """prompt text -> the oracle's reply text (what a perfect LLM would say)."""
    oracle = OracleBackend(plan.oracle)
    answers = {e.prompt.text: oracle.reply_text(e.case) for e in plan.executions}
    return lambda request: answers[request["messages"][0]["content"]]


def run(plan: Plan, db, url: str):
    async def go():
        context = BackendContext(
            oracle=plan.oracle,
            environment=plan.environment,
            decoding=Decoding(),
            timeout=10,
            ollama_hosts=(url,),
        )
        backends = {SPEC: create_backend(SPEC, context)}
        try:
            with Store.open(db) as store:
                return await CampaignRunner(plan, store, backends).run()
        finally:
            await context.close()

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("mode", "verdict"),
    [
        ("correct", "pass"),
        ("fenced", "pass"),
        ("prose", "pass"),
        ("thinking", "pass"),
        ("malformed", "invalid"),
    ],
)
def test_scripted_replies_are_graded(plan, tmp_path, mode, verdict):
    db = tmp_path / "r.sqlite"
    with StandinOllama({"gemma3:1b": Script(mode=mode)}, answer=oracle_answers(plan)) as server:
        outcome = run(plan, db, server.url)
        assert len(server.chats()) == plan.total
    assert outcome.complete
    with Store.open(db) as store:
        rows = store.executions()
    assert len(rows) == plan.total
    assert {r["verdict"] for r in rows} == {verdict}, [r["reason"] for r in rows][:3]
    if mode == "thinking":
        assert all(r["thinking"] and "think" not in r["reply"] for r in rows)


def test_regrading_applies_a_new_satisfy_rule_without_the_llm(plan, tmp_path):
    db = tmp_path / "r.sqlite"

    def off_by_point_two(request):  # satisfy: V + 0.2 (clipped), other categories: oracle
        text = oracle_answers(plan)(request)
        if '"probability"' in text:
            import json

            value = json.loads(text)["probability"]
            return json.dumps({"probability": min(1.0, value + 0.2) if value < 0.5 else 0.99})
        return text

    with StandinOllama({"gemma3:1b": Script()}, answer=off_by_point_two) as server:
        run(plan, db, server.url)
        sent = len(server.chats())
    with Store.open(db) as store:
        before = {r["id"]: r["verdict"] for r in store.executions(category="satisfy")}
    assert set(before.values()) <= {"fail", "pass"} and "fail" in before.values()

    summary = regrade(db, GradingSettings(satisfy_rule="half"))  # oracle rebuilt from the db
    with Store.open(db) as store:
        after = {r["id"]: r for r in store.executions(category="satisfy")}
    assert summary.graded == plan.total and summary.changed >= 1
    assert all(r["grading"]["satisfy_rule"] == "half" for r in after.values())
    assert all(r["abs_error"] is not None for r in after.values())
    assert len(server.chats()) == sent  # no LLM was asked

    regrade(db, GradingSettings())
    with Store.open(db) as store:
        again = {r["id"]: r["verdict"] for r in store.executions(category="satisfy")}
    assert again == before

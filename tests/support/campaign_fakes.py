"""Hand-made plans, backends and a grader for runner/store tests that need no Storm or taxonomy.

A synthetic plan asks yes/no questions (schema ``{"answer": "yes"|"no"}``); the toy grader passes
``yes``, fails ``no`` and calls anything unparseable invalid. ``ScriptedBackend`` answers after a
delay and records how many requests were in flight at once.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from explaincheck.core.backends.base import Backend, BackendError, Reply
from explaincheck.core.campaign.plan import Campaign, Plan, PlannedExecution, execution_key
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import EXACT, ModelSummary, OracleResult, StateFacts
from explaincheck.core.taxonomy.base import FAIL, INVALID, PASS, Grade, Prompt, TestCase

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
}
CATEGORIES = ("satisfy", "bottleneck", "best_action")


def toy_state(i: int) -> StateFacts:
    return StateFacts(
        id=i,
        valuation={"x": i},
        labels=(),
        value=0.5,
        danger=None,
        q={"go": 0.5},
        best=("go",),
        worst=("go",),
        action_order=(("go",),),
        optimal_action="go",
        dead_end=False,
        bottleneck=False,
        centrality=0.0,
        is_goal=False,
        is_unsafe=False,
        is_initial=i == 0,
        successors={"go": {i: 1.0}},
    )


def toy_oracle(states: int = 40) -> OracleResult:
    model = ModelSummary(
        path="toy.prism",
        constants="",
        goal_label="goal",
        unsafe_label="unsafe",
        states=states,
        choices=states,
        transitions=states,
        initial=0,
        variables=("x",),
        labels=("goal",),
        actions=("go",),
        content_hash="f" * 64,
    )
    return OracleResult(
        model=model,
        states=tuple(toy_state(i) for i in range(states)),
        method=EXACT,
        tie_tolerance=0.0,
        has_danger=False,
        warnings=(),
        seconds=0.0,
    )


def toy_environment() -> Environment:
    return Environment(
        id="toy",
        title="Toy",
        description="A toy.",
        model_path="toy.prism",
        constants="",
        goal_label="goal",
        unsafe_label="unsafe",
        task="Answer.",
        action_meanings={"go": "go on"},
        describe=lambda s: f"state {s.id}",
    )


def synthetic_plan(
    llms: tuple[str, ...] = ("fake",),
    cases_per_category: int = 4,
    repeat: int = 1,
    *,
    same_prompt: bool = False,
) -> Plan:
    """A plan of yes/no questions; ``same_prompt`` gives every case the same prompt text."""
    oracle = toy_oracle()
    campaign = Campaign(
        environment="toy",
        llms=llms,
        categories=CATEGORIES,
        budget=cases_per_category,
        repeat=repeat,
    )
    executions = []
    identity = campaign.identity(oracle.model.content_hash)
    for index in range(cases_per_category):
        for category in CATEGORIES:
            case = TestCase(category, (index,), 0.5, "prioritized", index)
            text = (
                "Is it? Answer yes or no." if same_prompt else f"{category}: is state {index} ok?"
            )
            prompt = Prompt(text, SCHEMA)
            for llm in llms:
                for r in range(repeat):
                    key = execution_key(oracle.model.content_hash, llm, case, r, prompt, identity)
                    executions.append(
                        PlannedExecution(key, llm, case, r, prompt, "state", ({"x": index},))
                    )
    cases = {(c, "prioritized"): cases_per_category for c in CATEGORIES}
    return Plan(campaign, toy_environment(), oracle, tuple(executions), {}, cases)


def toy_grade(case: TestCase, text: str) -> Grade:
    try:
        value = json.loads(text)["answer"]
    except (ValueError, KeyError, TypeError):
        return Grade(INVALID, "no JSON answer", None, "yes")
    if value == "yes":
        return Grade(PASS, "said yes", value, "yes")
    return Grade(FAIL, f"said {value}", value, "yes")


@dataclass
class ScriptedBackend(Backend):
    """Answers ``reply`` after ``delay``; ``fail`` raises BackendError; counts concurrency."""

    spec: str = "fake"
    reply: str = '{"answer": "yes"}'
    delay: float = 0.0
    fail: bool = False
    concurrency: int = 4
    calls: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    seen: list[str] = field(default_factory=list)

    async def answer(self, prompt: Prompt, case: TestCase) -> Reply:
        self.calls += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            if self.fail:
                raise BackendError("scripted failure")
            self.seen.append(case.key)
            return Reply(self.reply, latency=self.delay, host="fake")
        finally:
            self.in_flight -= 1

"""Follow-up probes after a run (``run --behavioural``): each category's ``follow_up`` asked.

Why in the campaign: probes are asked like cases (the same LLM, backends made as the session
makes them) and stored through the session's store, while what to ask is the category's
(``Category.follow_up``: for ``factors`` the decision question on each intervened model). The
pipeline asks every category of the plan that declares ``follow_up_trials``, never one by id.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from explaincheck.core.backends.base import Backend, BackendError
from explaincheck.core.backends.llm import Decoding, LLMBackend
from explaincheck.core.backends.registry import (
    KINDS,
    BackendContext,
    create_backend,
    parse_spec,
)
from explaincheck.core.campaign.plan import Plan, oracle_request
from explaincheck.core.campaign.session import BackendSettings, backend_context
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import Category
from explaincheck.core.taxonomy.parsing import parse_reply
from explaincheck.core.taxonomy.probes import Probe, trial_name
from explaincheck.core.taxonomy.registry import category

BackendFor = Callable[[str, OracleResult], Awaitable[Backend]]


@dataclass(frozen=True)
class Probed:
    """How many executions of one category were probed (for the front ends' words)."""

    category: str
    words: str  # the category's ``follow_up_words``
    executions: int


def probing(plan: Plan) -> list[Category]:
    """The plan's categories that have follow-up probes, in plan order."""
    ids = dict.fromkeys(e.case.category for e in plan.executions)
    return [found for found in map(category, ids) if found.follow_up_trials > 0]


async def follow_up(plan: Plan, store: Store, settings: BackendSettings) -> list[Probed]:
    """Probe every graded execution of ``plan`` whose category has follow-up probes.
    Answerers that read an oracle get one backend per probed oracle (they must answer about
    that model); the others one backend each, shared by all probes. ``settings``: the session's
    ``BackendSettings``."""
    categories = probing(plan)
    if not categories:
        return []
    campaign = plan.campaign
    # each probe is asked its category's trials, each trial its own seed at the repeat temperature
    trials = max(c.follow_up_trials for c in categories)
    decoding = Decoding(campaign.seed, trials, campaign.repeat_temperature)
    contexts: list[BackendContext] = []
    backends: dict[tuple[str, int], Backend] = {}

    async def backend_for(spec: str, oracle: OracleResult) -> Backend:
        per_oracle = KINDS[parse_spec(spec)[0]].reads_oracle
        key = (spec, id(oracle) if per_oracle else 0)
        if key not in backends:
            contexts.append(backend_context(settings, oracle, plan.environment, decoding))
            backends[key] = create_backend(spec, contexts[-1])
            made = backends[key]
            if isinstance(made, LLMBackend):
                await made.prepare()  # as the runner does: hosts listed, model found
        return backends[key]

    base = oracle_request(campaign, plan.environment)
    keys = {e.key for e in plan.executions}
    by_key = {e.key: e for e in plan.executions}
    done: list[Probed] = []
    try:
        for found in categories:
            count = 0
            for row in store.iter_executions(category=found.id):
                execution = by_key.get(row["exec_key"])
                if row["exec_key"] not in keys or row["verdict"] == "error" or execution is None:
                    continue
                probes = found.follow_up(execution.case, plan.oracle, plan.environment, base)
                await ask_all(backend_for, execution.llm, execution.key, probes, store, found)
                count += 1
            done.append(Probed(found.id, found.follow_up_words, count))
    finally:
        for backend in backends.values():
            await backend.close()
        for context in contexts:
            await context.close()
    return done


async def ask_all(
    backend_for: BackendFor,
    llm: str,
    exec_key: str,
    probes: list[Probe],
    store: Store,
    category: Category,
) -> None:
    """Ask ``llm`` every trial of every probe not yet stored and store its reply and the
    answer read with the probe's own form."""
    answered = store.answered_probes(llm, exec_key)
    for probe, trial in ((p, t) for p in probes for t in range(category.follow_up_trials)):
        name = trial_name(probe.name, trial)
        if name in answered:
            continue
        backend = await backend_for(llm, probe.oracle)
        try:
            if trial:
                reply = await backend.answer_repeat(probe.prompt, probe.case, trial)
            else:
                reply = await backend.answer(probe.prompt, probe.case)
            text = reply.text
        except BackendError:
            text = None
        answer = None
        if text is not None:
            parsed = parse_reply(text, probe.form)
            answer = _stored(parsed.value) if parsed.ok else None
        state = probe.case.states[0]
        store.record_probe(llm, exec_key, name, state, probe.prompt.text, text, answer)


def _stored(value: Any) -> str:
    """A read answer as the probe table keeps it: text as is, anything else as JSON."""
    import json

    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def total(probed: list[Probed]) -> int:
    """The number of executions probed over every category."""
    return sum(p.executions for p in probed)

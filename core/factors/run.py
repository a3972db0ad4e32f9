"""``explaincheck run --behavioural``: the behavioural probes after a campaign's run."""

from __future__ import annotations

from typing import Any

from explaincheck.core.factors.behaviour import TRIALS, run_behavioural
from explaincheck.core.oracle.types import OracleResult


async def behavioural(plan: Any, store: Any, settings: Any) -> int:
    """Probe every graded ``factors`` execution of ``plan``. Answerers that read an oracle get
    one backend per intervened oracle (they must answer about that model); the others one
    backend each, shared by all probes. ``settings``: the session's ``BackendSettings``."""
    from explaincheck.core.backends.llm import Decoding, LLMBackend
    from explaincheck.core.backends.registry import (
        KINDS,
        BackendContext,
        create_backend,
        parse_spec,
    )
    from explaincheck.core.campaign.session import backend_context

    campaign = plan.campaign
    # each probe is asked TRIALS times, each trial its own seed at the repeat temperature
    decoding = Decoding(campaign.seed, TRIALS, campaign.repeat_temperature)

    def context(oracle: OracleResult) -> BackendContext:
        return backend_context(settings, oracle, plan.environment, decoding)

    contexts: list[BackendContext] = []
    backends: dict[tuple[str, int], Any] = {}

    async def backend_for(spec: str, oracle: OracleResult) -> Any:
        per_oracle = KINDS[parse_spec(spec)[0]].reads_oracle
        key = (spec, id(oracle) if per_oracle else 0)
        if key not in backends:
            contexts.append(context(oracle))
            backends[key] = create_backend(spec, contexts[-1])
            if isinstance(backends[key], LLMBackend):
                await backends[key].prepare()  # as the runner does: hosts listed, model found
        return backends[key]

    keys = {e.key for e in plan.executions}
    rows = [
        r
        for r in store.iter_executions(category="factors")
        if r["exec_key"] in keys and r["verdict"] != "error"
    ]
    try:
        return await run_behavioural(plan, store, backend_for, rows)
    finally:
        for backend in backends.values():
            await backend.close()
        for found in contexts:
            await found.close()

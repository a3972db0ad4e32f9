"""The behavioural check: ask the same LLM the decision question again on each intervened model.

For a ``factors`` case at state s the LLM is asked the best_action question at s (its baseline)
and, per factor, two probes: **necessity** (the factor changed: the intervened model re-rendered
with its constants plus one sentence saying what changed, or for a state factor the alternative
state where the factual best action falls furthest behind) and **sufficiency** (only the factor
kept: every other model factor neutral, at s). Every question is asked ``TRIALS`` times (each
trial its own seed), so PN (the share of necessity trials whose decision differs from the
baseline's commonest answer) and PS (the share of sufficiency trials that keep it) are
frequencies, as in the seed study. Per (case, factor) the views sit side by side: what the LLM
says (cited), what it does (PN > ½), whether it keeps its decision (PS > ½), and what is true
(necessary, sufficient). Results go to their own table ``factor_behaviour`` of the results
database (one row per LLM, case, probe and trial), written by the ``Store`` alone (so a reply
is cleaned like the runner's: lone surrogates and NUL characters become U+FFFD).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from explaincheck.core.environments.loader import format_constants, parse_constants
from explaincheck.core.environments.types import Environment
from explaincheck.core.factors.intervene import intervened_request
from explaincheck.core.factors.truth import probe_alternative, valuation_key
from explaincheck.core.factors.types import MODEL, Factor, factor_truth
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import Prompt, TestCase
from explaincheck.core.taxonomy.parsing import parse_reply

BASELINE = "(baseline)"
SUFFICIENCY_MARK = "~keep"  # probe name suffix: only this factor kept (sufficiency)
TRIAL_MARK = "#"  # probe name suffix of a trial after the first
TRIALS = 3  # each probe is asked this often, so PN and PS are frequencies (the seed study's)


@dataclass(frozen=True)
class Probe:
    """One decision question: ``case`` (a best_action case) on ``oracle`` with ``prompt``."""

    name: str  # BASELINE or a factor id
    case: TestCase
    oracle: OracleResult
    prompt: Prompt


def probes(
    case: TestCase,
    oracle: OracleResult,
    environment: Environment,
    base: OracleRequest,
    compute: Callable[[OracleRequest], OracleResult] | None = None,
) -> list[Probe]:
    """The baseline question and, per factor, a necessity probe (the factor changed: its
    intervened model, or the state factor's alternative state) and a sufficiency probe (only the
    factor kept: every other model factor neutral; for a state factor the state as it is with
    every model factor neutral) for a ``factors`` case."""
    if compute is None:
        from explaincheck.core.oracle import compute_oracle

        compute = compute_oracle
    truth = factor_truth(oracle)
    assert truth is not None
    state = oracle.state(case.states[0])
    found = [
        Probe(
            BASELINE,
            _decision(state.id, case),
            oracle,
            _render(state.id, case, oracle, environment),
        )
    ]
    models = [f for f in truth.factors if f.kind == MODEL]
    for factor in truth.factors:
        if factor.kind == MODEL:
            necessity = _on_model(factor.id, [factor], case, state, environment, base, compute)
            if necessity is not None:
                found.append(necessity)
        else:
            other = _strongest_alternative(state, factor, oracle)
            if other is not None:
                probe_case = _decision(other, case)
                prompt = _render(other, probe_case, oracle, environment)
                found.append(Probe(factor.id, probe_case, oracle, prompt))
        others = [f for f in models if f.id != factor.id]
        name = factor.id + SUFFICIENCY_MARK
        sufficiency = _on_model(name, others, case, state, environment, base, compute)
        if sufficiency is not None:
            found.append(sufficiency)
    return found


def _on_model(
    name: str,
    neutral: list[Factor],
    case: TestCase,
    state: Any,
    environment: Environment,
    base: OracleRequest,
    compute: Callable[[OracleRequest], OracleResult],
) -> Probe | None:
    """The decision question at ``state`` on the model with ``neutral``'s constants set (the
    factual model when empty), with one sentence per change; None where that model does not
    reach the state."""
    from explaincheck.core.taxonomy.prompts import render_prompt

    constants: dict[str, Any] = {}
    for factor in neutral:
        constants.update(factor.constants)
    after = compute(intervened_request(base, constants))
    target = next((s for s in after.states if valuation_key(s) == valuation_key(state)), None)
    if target is None:
        return None
    words = _reworded(environment, constants, base)
    probe_case = _decision(target.id, case)
    prompt = render_prompt(probe_case, after, words)
    if not neutral:
        return Probe(name, probe_case, after, prompt)
    changes = "; ".join(f.neutral or f"{f.words} is removed" for f in neutral)
    note = f"Changed in this version of the task: {changes}."
    text = prompt.text.replace(words.task, f"{words.task}\n\n{note}", 1)
    return Probe(name, probe_case, after, Prompt(text, prompt.schema))


def _decision(state_id: int, case: TestCase) -> TestCase:
    return TestCase("best_action", (state_id,), 0.0, "behaviour", case.index)


def _render(
    state_id: int, case: TestCase, oracle: OracleResult, environment: Environment
) -> Prompt:
    from explaincheck.core.taxonomy.prompts import render_prompt

    return render_prompt(_decision(state_id, case), oracle, environment)


def _reworded(environment: Environment, constants: dict, base: OracleRequest) -> Environment:
    """The environment's words with ``constants`` set (templates are re-filled)."""
    if not environment.folder or not constants:
        return environment
    from explaincheck.core.environments.registry import resolve

    values = parse_constants(base.constants)
    values.update(constants)
    return resolve(environment.folder, constants=format_constants(values))


def _strongest_alternative(state: Any, factor: Factor, oracle: OracleResult) -> int | None:
    """The alternative state to probe (``truth.probe_alternative``): the one where the factual
    best action falls furthest behind, which is what makes the factor necessary."""
    other = probe_alternative(state, factor.variable or "", oracle)
    return None if other is None else other.id


async def ask_all(
    backend_for: Callable[[str, OracleResult], Awaitable[Any]],
    llm: str,
    exec_key: str,
    found: list[Probe],
    store: Store,
) -> None:
    """Ask ``llm`` every probe not yet stored and store its reply and action."""
    from explaincheck.core.backends.base import BackendError

    done = store.answered_probes(llm, exec_key)
    for probe, trial in ((p, t) for p in found for t in range(TRIALS)):
        name = trial_name(probe.name, trial)
        if name in done:
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
        action = None
        if text is not None:
            from explaincheck.core.taxonomy.answers import action_form

            parsed = parse_reply(
                text, action_form(probe.oracle.state(probe.case.states[0]).actions)
            )
            action = parsed.value if parsed.ok else None
        store.record_probe(
            llm, exec_key, name, probe.case.states[0], probe.prompt.text, text, action
        )


def trial_name(probe: str, trial: int) -> str:
    """The stored name of one trial of a probe (trial 0 keeps the probe's own name)."""
    return probe if trial == 0 else f"{probe}{TRIAL_MARK}{trial}"


def _trials(asked: Mapping[str, str | None], probe: str) -> list[str]:
    """The answered actions of every stored trial of ``probe``."""
    names = [probe, *(f"{probe}{TRIAL_MARK}{t}" for t in range(1, TRIALS))]
    return [a for a in (asked.get(n) for n in names) if a is not None]


def views(
    connection: sqlite3.Connection, executions: list[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Per stored ``factors`` execution and factor: says (cited); pn, the share of the necessity
    probe's trials whose decision differs from the baseline's (its commonest answer over its
    trials), and does = pn > ½; ps, the share of the sufficiency probe's trials that keep the
    baseline decision, and keeps = ps > ½ (None where no trial answered); true (necessary) and
    sufficient (the truth)."""
    from collections import Counter

    rows = []
    for execution in executions:
        expected, answer = execution.get("expected") or {}, execution.get("answer") or {}
        asked = {
            probe: action
            for probe, action in connection.execute(
                "SELECT probe, action FROM factor_behaviour WHERE llm = ? AND exec_key = ?",
                (execution["llm"], execution["exec_key"]),
            )
        }
        baselines = _trials(asked, BASELINE)
        baseline = Counter(baselines).most_common(1)[0][0] if baselines else None
        for factor in expected.get("strength") or {}:
            changed = _trials(asked, factor)
            kept = _trials(asked, factor + SUFFICIENCY_MARK)
            pn = (
                sum(a != baseline for a in changed) / len(changed)
                if baseline is not None and changed
                else None
            )
            ps = (
                sum(a == baseline for a in kept) / len(kept)
                if baseline is not None and kept
                else None
            )
            rows.append(
                {
                    "llm": execution["llm"],
                    "case": execution["exec_key"],
                    "factor": factor,
                    "says": factor in (answer.get("factors") or []),
                    "pn": pn,
                    "does": None if pn is None else pn > 0.5,
                    "ps": ps,
                    "keeps": None if ps is None else ps > 0.5,
                    "true": factor in (expected.get("necessary") or []),
                    "sufficient": factor in (expected.get("sufficient") or []),
                }
            )
    return rows


async def run_behavioural(
    plan: Any,
    store: Store,
    backend_for: Callable[[str, OracleResult], Awaitable[Any]],
    rows: list[Mapping[str, Any]],
) -> int:
    """Ask every probe of every stored ``factors`` execution of ``plan``; the number of
    executions probed."""
    from explaincheck.core.campaign.plan import oracle_request

    base = oracle_request(plan.campaign, plan.environment)
    by_key = {e.key: e for e in plan.executions}
    count = 0
    for row in rows:
        execution = by_key.get(row["exec_key"])
        if execution is None or execution.case.category != "factors":
            continue
        found = probes(execution.case, plan.oracle, plan.environment, base)
        await ask_all(backend_for, execution.llm, execution.key, found, store)
        count += 1
    return count

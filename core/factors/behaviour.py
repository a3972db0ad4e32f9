"""The behavioural check: ask the same LLM the decision question again on each intervened model.

For a ``factors`` case at state s the LLM is asked the best_action question at s (its baseline)
and once per factor: on the intervened model for a model factor (the environment re-rendered
with the intervened constants, plus one sentence saying what changed), at the strongest
alternative state for a state factor. Its decision "changes" when the answer differs from the
baseline. Three views then sit side by side per (case, factor): what the LLM says (cited), what
it does (its decision changes) and what is true (the factor is necessary). Results go to their
own table ``factor_behaviour`` of the results database (one row per LLM, case and probe).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from explaincheck.core.environments.loader import format_constants, parse_constants
from explaincheck.core.environments.types import Environment
from explaincheck.core.factors.intervene import intervened_request
from explaincheck.core.factors.truth import probe_alternative, valuation_key
from explaincheck.core.factors.types import MODEL, Factor, factor_truth
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.taxonomy.base import Prompt, TestCase
from explaincheck.core.taxonomy.parsing import parse_reply

BASELINE = "(baseline)"
TABLE = """CREATE TABLE IF NOT EXISTS factor_behaviour (
    llm TEXT NOT NULL, exec_key TEXT NOT NULL, probe TEXT NOT NULL, state INTEGER NOT NULL,
    prompt TEXT NOT NULL, reply TEXT, action TEXT,
    PRIMARY KEY (llm, exec_key, probe))"""


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
    """The baseline question and one question per factor for a ``factors`` case."""
    from explaincheck.core.taxonomy.prompts import render_prompt

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
    for factor in truth.factors:
        if factor.kind == MODEL:
            request = intervened_request(base, factor.constants)
            after = compute(request)
            target = next(s for s in after.states if valuation_key(s) == valuation_key(state))
            words = _reworded(environment, factor, base)
            probe_case = _decision(target.id, case)
            prompt = render_prompt(probe_case, after, words)
            change = factor.neutral or f"{factor.words} is removed"
            note = f"Changed in this version of the task: {change}."
            text = prompt.text.replace(words.task, f"{words.task}\n\n{note}", 1)
            found.append(Probe(factor.id, probe_case, after, Prompt(text, prompt.schema)))
        else:
            other = _strongest_alternative(state, factor, oracle)
            if other is None:
                continue
            probe_case = _decision(other, case)
            found.append(
                Probe(
                    factor.id, probe_case, oracle, _render(other, probe_case, oracle, environment)
                )
            )
    return found


def _decision(state_id: int, case: TestCase) -> TestCase:
    return TestCase("best_action", (state_id,), 0.0, "behaviour", case.index)


def _render(
    state_id: int, case: TestCase, oracle: OracleResult, environment: Environment
) -> Prompt:
    from explaincheck.core.taxonomy.prompts import render_prompt

    return render_prompt(_decision(state_id, case), oracle, environment)


def _reworded(environment: Environment, factor: Factor, base: OracleRequest) -> Environment:
    """The environment's words with the factor's constants set (templates are re-filled)."""
    if not environment.folder:
        return environment
    from explaincheck.core.environments.registry import resolve

    values = parse_constants(base.constants)
    values.update(factor.constants)
    return resolve(environment.folder, constants=format_constants(values))


def _strongest_alternative(state: Any, factor: Factor, oracle: OracleResult) -> int | None:
    """The alternative state to probe (``truth.probe_alternative``): the one where the factual
    best action falls furthest behind, which is what makes the factor necessary."""
    other = probe_alternative(state, factor.variable or "", oracle)
    return None if other is None else other.id


async def ask_all(
    backend_for: Callable[[str, OracleResult], Any],
    llm: str,
    exec_key: str,
    found: list[Probe],
    connection: sqlite3.Connection,
) -> None:
    """Ask ``llm`` every probe not yet stored and store its reply and action."""
    from explaincheck.core.backends.base import BackendError

    done = {
        row[0]
        for row in connection.execute(
            "SELECT probe FROM factor_behaviour"
            " WHERE llm = ? AND exec_key = ? AND action IS NOT NULL",
            (llm, exec_key),
        )
    }
    for probe in found:
        if probe.name in done:
            continue
        backend = backend_for(llm, probe.oracle)
        try:
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
        connection.execute(
            "INSERT OR REPLACE INTO factor_behaviour VALUES (?, ?, ?, ?, ?, ?, ?)",
            (llm, exec_key, probe.name, probe.case.states[0], probe.prompt.text, text, action),
        )
        connection.commit()


def views(
    connection: sqlite3.Connection, executions: list[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Per stored ``factors`` execution and factor: says (cited), does (the LLM's decision
    changes under the intervention; None when a reply is missing) and true (necessary)."""
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
        baseline = asked.get(BASELINE)
        for factor, _ in (expected.get("strength") or {}).items():
            after = asked.get(factor)
            rows.append(
                {
                    "llm": execution["llm"],
                    "case": execution["exec_key"],
                    "factor": factor,
                    "says": factor in (answer.get("factors") or []),
                    "does": None if baseline is None or after is None else after != baseline,
                    "true": factor in (expected.get("necessary") or []),
                }
            )
    return rows


def open_table(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path)
    connection.execute(TABLE)
    connection.commit()
    return connection


async def run_behavioural(
    plan: Any,
    store_path: str,
    backend_for: Callable[[str, OracleResult], Any],
    rows: list[Mapping[str, Any]],
) -> int:
    """Ask every probe of every stored ``factors`` execution of ``plan``; the number of
    executions probed."""
    from explaincheck.core.campaign.plan import oracle_request

    base = oracle_request(plan.campaign, plan.environment)
    by_key = {e.key: e for e in plan.executions}
    connection = open_table(store_path)
    count = 0
    try:
        for row in rows:
            execution = by_key.get(row["exec_key"])
            if execution is None or execution.case.category != "factors":
                continue
            found = probes(execution.case, plan.oracle, plan.environment, base)
            await ask_all(backend_for, execution.llm, execution.key, found, connection)
            count += 1
    finally:
        connection.close()
    return count

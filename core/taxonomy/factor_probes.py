"""The behavioural check's probes of a ``factors`` case: the decision question again on each
intervened model (``Factors.follow_up``).

For a ``factors`` case at state s the LLM is asked the best_action question at s (its baseline)
and, per factor, two probes: **necessity** (the factor changed: the intervened model re-rendered
with its constants plus one sentence saying what changed, or for a state factor the alternative
state where the factual best action falls furthest behind) and **sufficiency** (only the factor
kept: every other model factor neutral, at s). Every question is asked ``TRIALS`` times (each
trial its own seed), so PN and PS are frequencies, as in the seed study. The campaign asks them
(``core/campaign/probes.py``) and the store keeps the replies in ``factor_behaviour``; the
views side by side are read by ``core/analysis/factor_report.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from explaincheck.core.environments.loader import format_constants, parse_constants
from explaincheck.core.environments.registry import resolve
from explaincheck.core.environments.types import Environment
from explaincheck.core.factors.intervene import intervened_request
from explaincheck.core.factors.truth import probe_alternative, valuation_key
from explaincheck.core.factors.types import MODEL, Factor, factor_truth
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest, OracleResult, StateFacts
from explaincheck.core.taxonomy.answers import action_form
from explaincheck.core.taxonomy.base import Prompt, TestCase
from explaincheck.core.taxonomy.best_action import BestAction
from explaincheck.core.taxonomy.probes import Probe
from explaincheck.core.taxonomy.prompt_text import prompt_for

BASELINE = "(baseline)"
SUFFICIENCY_MARK = "~keep"  # probe name suffix: only this factor kept (sufficiency)
TRIALS = 3  # each probe is asked this often, so PN and PS are frequencies (the seed study's)


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
        compute = compute_oracle
    truth = factor_truth(oracle)
    assert truth is not None
    state = oracle.state(case.states[0])
    found = [
        _probe(
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
                found.append(_probe(factor.id, probe_case, oracle, prompt))
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
    state: StateFacts,
    environment: Environment,
    base: OracleRequest,
    compute: Callable[[OracleRequest], OracleResult],
) -> Probe | None:
    """The decision question at ``state`` on the model with ``neutral``'s constants set (the
    factual model when empty), with one sentence per change; None where that model does not
    reach the state."""
    constants: dict[str, Any] = {}
    for factor in neutral:
        constants.update(factor.constants)
    after = compute(intervened_request(base, constants))
    target = next((s for s in after.states if valuation_key(s) == valuation_key(state)), None)
    if target is None:
        return None
    words = _reworded(environment, constants, base)
    probe_case = _decision(target.id, case)
    prompt = prompt_for(_BEST_ACTION, probe_case, after, words)
    if not neutral:
        return _probe(name, probe_case, after, prompt)
    changes = "; ".join(f.neutral or f"{f.words} is removed" for f in neutral)
    note = f"Changed in this version of the task: {changes}."
    text = prompt.text.replace(words.task, f"{words.task}\n\n{note}", 1)
    return _probe(name, probe_case, after, Prompt(text, prompt.schema))


def _probe(name: str, case: TestCase, oracle: OracleResult, prompt: Prompt) -> Probe:
    """A decision probe, its reply read as one of every action of the state."""
    return Probe(name, case, oracle, prompt, action_form(oracle.state(case.states[0]).actions))


# the probes' question, rendered by the category itself: not looked up in the registry, which
# holds the factors category that asks for these probes (a cycle)
_BEST_ACTION = BestAction()


def _decision(state_id: int, case: TestCase) -> TestCase:
    return TestCase(_BEST_ACTION.id, (state_id,), 0.0, "behaviour", case.index)


def _render(
    state_id: int, case: TestCase, oracle: OracleResult, environment: Environment
) -> Prompt:
    return prompt_for(_BEST_ACTION, _decision(state_id, case), oracle, environment)


def _reworded(environment: Environment, constants: dict, base: OracleRequest) -> Environment:
    """The environment's words with ``constants`` set (templates are re-filled)."""
    if not environment.folder or not constants:
        return environment

    values = parse_constants(base.constants)
    values.update(constants)
    return resolve(environment.folder, constants=format_constants(values))


def _strongest_alternative(state: StateFacts, factor: Factor, oracle: OracleResult) -> int | None:
    """The alternative state to probe (``truth.probe_alternative``): the one where the factual
    best action falls furthest behind, which is what makes the factor necessary."""
    other = probe_alternative(state, factor.variable or "", oracle)
    return None if other is None else other.id

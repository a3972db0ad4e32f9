"""An exact ``OracleResult`` for a user's property, composed from the property's standalone
pieces (``core/oracle/property.py``, ``storm/properties.py``, ``property_values.py``).

Why in tests: the one oracle pipeline (``core/oracle/compute.py``, issue 48) takes these pieces
once both branches are merged; until then the taxonomy, prompts, grading, δ and policies are
tested on results assembled here the way the pipeline will assemble them (exact method only, so
every value is a checked fraction): Storm's values, Q from ``q_values_exact``, A*/A° and the tie
groups by ``columnar.choice_facts`` with the property's ``ordering_keys``, a step-bounded
property over ``bounded_product``, the stay set of ``[φ U ψ]`` labelled ``Property.stay_label``,
the rewards of the states where the run has not ended.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from explaincheck.core.oracle import bottlenecks, centrality
from explaincheck.core.oracle import property_values as pv
from explaincheck.core.oracle.arrays import choice_arrays
from explaincheck.core.oracle.columnar import NO_ACTION, choice_facts
from explaincheck.core.oracle.property import BOUNDED, VARIABLE_STEPS, Property, parse_property
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.properties import CheckedProperty, check_property
from explaincheck.core.oracle.storm.structure import ModelStructure, read_structure
from explaincheck.core.oracle.types import (
    EXACT,
    ModelSummary,
    OracleRequest,
    OracleResult,
    StateFacts,
)

Exact = Fraction | float


def property_oracle(
    model: str | Path,
    prop: Property | str,
    *,
    constants: str = "",
    unsafe: str | None = "unsafe",
) -> OracleResult:
    """The exact oracle of ``prop`` on ``model`` (D = Pmin [F unsafe] where the label exists)."""
    if isinstance(prop, str):
        prop = parse_property(prop)
    request = OracleRequest(
        model_path=str(model),
        constants=constants,
        goal_label=prop.goal_text,
        unsafe_label=unsafe or "unsafe",
        property=prop,
    )
    parsed = building.parse(request)
    built = building.build(parsed, exact=False, state_limit=10_000, path=str(model))
    built = building.build(parsed, exact=True, state_limit=10_000, path=str(model))
    structure = read_structure(built, exact=True)
    checked = check_property(built, parsed.program, prop, exact=True, path=str(model))
    danger = None
    if parsed.has_unsafe:
        danger_prop = parse_property(f"Pmin=? [F {parsed.formula(1)}]")
        danger = check_property(built, parsed.program, danger_prop, exact=True)
    if prop.kind == BOUNDED:
        states = _bounded_states(structure, checked, prop, danger)
    else:
        states = _states(structure, checked, prop, danger)
    summary = ModelSummary(
        path=str(model),
        constants=constants,
        goal_label=prop.goal_text,
        unsafe_label=request.unsafe_label,
        states=len(states),
        choices=sum(len(s.successors) for s in states),
        transitions=sum(len(t) for s in states for t in s.successors.values()),
        initial=0 if prop.kind == BOUNDED else structure.initial,
        variables=structure.variables + ((VARIABLE_STEPS,) if prop.kind == BOUNDED else ()),
        labels=tuple(sorted(parsed.labels)),
        actions=tuple(sorted({c.action for cs in structure.choices for c in cs if c.action})),
        content_hash=f"property-oracle/{Path(model).name}/{prop.key()}/{constants}",
        property=prop,
    )
    return OracleResult(
        model=summary,
        states=tuple(states),
        method=EXACT,
        tie_tolerance=0.0,
        has_danger=danger is not None,
        warnings=(),
        seconds=0.0,
        values_method=checked.method,
    )


def _cuts(arrays, target, initial) -> set[int]:
    """The bottleneck states (``bottlenecks.bottleneck_column``) as a set of ids."""
    column = bottlenecks.bottleneck_column(arrays, np.asarray(target, dtype=bool), initial)
    return set(np.flatnonzero(column).tolist())


def _tied(a: Exact, b: Exact) -> bool:
    return a == b


def _text(value: Exact) -> str | None:
    return None if math.isinf(value) else str(value)


def _states(
    structure: ModelStructure,
    checked: CheckedProperty,
    prop: Property,
    danger: CheckedProperty | None,
) -> list[StateFacts]:
    arrays = choice_arrays(structure)
    assert checked.exact is not None
    ended = pv.terminal_states(prop, checked.target, checked.stay)
    probabilities = [[dict(c.probabilities) for c in cs] for cs in structure.choices]
    q_exact = pv.q_values_exact(probabilities, checked.exact, checked.rewards_exact, ended)
    graph = pv.without_exits(arrays, ended & ~checked.target) if prop.stay else arrays
    bottleneck = _cuts(graph, checked.target, structure.initial)
    scores = centrality.estimate(structure.size, *arrays.edges).scores.tolist()
    failing = pv.failing_value(prop)
    facts = []
    row = 0
    for state, choices in enumerate(structure.choices):
        actions = [c.action for c in choices]
        q = q_exact[state]
        chosen = int(checked.scheduler[state]) if checked.scheduler is not None else 0
        rewards = checked.rewards_exact
        value = checked.exact[state]
        labels = structure.labels[state]
        if checked.stay is not None and checked.stay[state]:  # [φ U ψ]: φ's states labelled
            labels = tuple(sorted({*labels, prop.stay_label}))
        facts.append(
            StateFacts(
                id=state,
                valuation=structure.valuations[state],
                labels=labels,
                value=float(value),
                danger=float(danger.values[state]) if danger is not None else None,
                dead_end=failing is not None and value == failing,
                bottleneck=state in bottleneck,
                centrality=scores[state],
                is_goal=bool(checked.target[state]),
                is_unsafe="unsafe" in structure.labels[state],
                is_initial=state == structure.initial,
                **choice_facts(
                    actions,
                    [float(x) for x in q],
                    [{t: float(p) for t, p in c.probabilities.items()} for c in choices],
                    chosen,
                    _tied,
                    pv.ordering_keys(q, prop.direction),
                ),
                value_exact=_text(value),
                danger_exact=str(danger.exact[state]) if danger and danger.exact else None,
                q_exact={a: t for a, x in zip(actions, q, strict=True) if a and (t := _text(x))},
                successors_exact={
                    (c.action or NO_ACTION): {t: str(p) for t, p in c.probabilities.items()}
                    for c in choices
                },
                rewards={
                    (c.action or NO_ACTION): float(rewards[row + i]) for i, c in enumerate(choices)
                }
                if rewards is not None and not ended[state]
                else {},
                rewards_exact={
                    (c.action or NO_ACTION): str(rewards[row + i]) for i, c in enumerate(choices)
                }
                if rewards is not None and not ended[state]
                else {},
            )
        )
        row += len(choices)
    return facts


def _bounded_states(
    structure: ModelStructure,
    checked: CheckedProperty,
    prop: Property,
    danger: CheckedProperty | None,
) -> list[StateFacts]:
    """The product's states (s, k): the valuation of s with ``steps left`` = k."""
    assert prop.bound is not None
    arrays = choice_arrays(structure)
    product = pv.bounded_product(arrays, checked.target, prop.bound, structure.initial)
    probabilities = [[dict(c.probabilities) for c in cs] for cs in structure.choices]
    values, q_rows = pv.bounded_values_exact(product, probabilities, prop.direction)
    model_choices = [c for cs in structure.choices for c in cs]
    bottleneck = _cuts(product.arrays, product.target, 0)
    scores = centrality.estimate(product.size, *product.arrays.edges).scores.tolist()
    failing = pv.failing_value(prop)
    first = product.arrays.first_row
    facts = []
    for state in range(product.size):
        base = int(product.base_state[state])
        rows = range(int(first[state]), int(first[state + 1]))
        names: list[str | None] = []
        successors: list[dict[int, Fraction]] = []
        for row in rows:
            model_row = int(product.base_row[row])
            columns = product.arrays.rows.indices[
                product.arrays.rows.indptr[row] : product.arrays.rows.indptr[row + 1]
            ].tolist()
            if model_row < 0:
                names.append(None)
                successors.append({columns[0]: Fraction(1)})
                continue
            choice = model_choices[model_row]
            names.append(choice.action)
            bases = product.base_state[columns].tolist()
            successors.append(
                {c: Fraction(choice.probabilities[b]) for c, b in zip(columns, bases, strict=True)}
            )
        q = q_rows[state]
        value = values[state]
        keys = pv.ordering_keys(q, prop.direction)
        facts.append(
            StateFacts(
                id=state,
                valuation={
                    **structure.valuations[base],
                    VARIABLE_STEPS: int(product.steps_left[state]),
                },
                labels=structure.labels[base],
                value=float(value),
                danger=float(danger.values[base]) if danger is not None else None,
                dead_end=failing is not None and value == failing,
                bottleneck=state in bottleneck,
                centrality=scores[state],
                is_goal=bool(product.target[state]),
                is_unsafe="unsafe" in structure.labels[base],
                is_initial=state == 0,
                **choice_facts(
                    names,
                    [float(x) for x in q],
                    [{t: float(p) for t, p in s.items()} for s in successors],
                    int(np.argmax([k == max(keys) for k in keys])) if keys else 0,
                    _tied,
                    keys,
                ),
                value_exact=str(value),
                danger_exact=str(danger.exact[base]) if danger and danger.exact else None,
                q_exact={a: str(x) for a, x in zip(names, q, strict=True) if a},
                successors_exact={
                    (a or NO_ACTION): {t: str(p) for t, p in s.items()}
                    for a, s in zip(names, successors, strict=True)
                },
            )
        )
    return facts


def with_words(oracle: OracleResult, **words: str) -> OracleResult:
    """``oracle`` whose property carries prompt words (``target_words``, ``unit_words``)."""
    prop = replace(oracle.prop, **words)
    return replace(oracle, model=replace(oracle.model, property=prop))

"""Assemble the oracle of one model in the current process (``isolation.py`` runs it in a child).

Order: parse and check -> build (Rational engine when small enough, else float) -> structure ->
values (exact or verified) -> derived sets (A*, A°, dead ends) -> bottlenecks -> centrality.
"""

from __future__ import annotations

import hashlib
import time
from fractions import Fraction
from pathlib import Path

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import bottlenecks, building, centrality
from explaincheck.core.oracle.structure import ModelStructure, read_structure
from explaincheck.core.oracle.types import (
    EXACT,
    VERIFIED,
    ModelSummary,
    OracleRequest,
    OracleResult,
    StateFacts,
)
from explaincheck.core.oracle.values import TIE_TOLERANCE, Values, exact_values, verified_values


def request_hash(request: OracleRequest) -> str:
    """Identity of a request for the cache: file content, constants, labels and method."""
    content = Path(request.model_path).read_bytes()
    digest = hashlib.sha256(content)
    for part in (
        request.constants,
        request.goal_label,
        request.unsafe_label,
        request.method,
        str(request.exact_state_limit),
    ):
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()


def compute_in_process(request: OracleRequest) -> OracleResult:
    """Model-check ``request`` here and now (may take long or crash: prefer ``compute_oracle``)."""
    started = time.perf_counter()
    path = request.model_path
    parsed = building.parse(request)
    if request.method not in ("auto", EXACT, VERIFIED):
        raise ModelError(f"unknown oracle method {request.method!r}: use auto, exact or verified")
    # The float build is cheap and tells the size, which decides whether the (much slower)
    # Rational build is affordable; small models are therefore built twice, on purpose.
    model = building.build(parsed, exact=False, state_limit=request.state_limit, path=path)
    method = request.method
    if method == "auto":
        method = EXACT if model.nr_states <= request.exact_state_limit else VERIFIED
    if method == EXACT:
        model = building.build(parsed, exact=True, state_limit=request.state_limit, path=path)
    structure = read_structure(model, exact=method == EXACT)
    goal = structure.with_label(request.goal_label)
    unsafe = structure.with_label(request.unsafe_label) if parsed.has_unsafe else None
    if method == EXACT:
        values = exact_values(model, structure, parsed.properties, parsed.has_unsafe)
    else:
        values = verified_values(
            model, structure, parsed.properties, parsed.has_unsafe, goal, unsafe
        )
    bottleneck_set = bottlenecks.by_dominators(structure, goal)
    centrality_scores = centrality.betweenness(structure)
    states = derive_state_facts(
        structure, values, goal, unsafe, bottleneck_set, centrality_scores, exact=method == EXACT
    )
    warnings = list(structure.warnings)
    if not parsed.has_unsafe:
        warnings.append(
            f"the model has no {request.unsafe_label!r} label, so the danger D is absent and the "
            "'safer' category does not apply"
        )
    summary = ModelSummary(
        path=str(path),
        constants=request.constants,
        goal_label=request.goal_label,
        unsafe_label=request.unsafe_label,
        states=structure.size,
        choices=sum(len(c) for c in structure.choices),
        transitions=sum(len(c.probabilities) for cs in structure.choices for c in cs),
        initial=structure.initial,
        variables=structure.variables,
        labels=tuple(sorted(label for label in parsed.labels)),
        actions=tuple(sorted({c.action for cs in structure.choices for c in cs if c.action})),
        content_hash=request_hash(request),
    )
    return OracleResult(
        model=summary,
        states=tuple(states),
        method=method,
        tie_tolerance=0.0 if method == EXACT else TIE_TOLERANCE,
        has_danger=parsed.has_unsafe,
        warnings=tuple(warnings),
        seconds=time.perf_counter() - started,
    )


def _group_actions(names: list[str], keys: list, tied) -> tuple[tuple[str, ...], ...]:
    """Actions sorted by decreasing value, grouped where values tie (model order within a
    group, so both methods name a tie the same way whatever the round-off)."""
    order = sorted(range(len(names)), key=lambda i: keys[i], reverse=True)
    groups: list[list[str]] = []
    previous = None
    for i in order:
        if previous is not None and tied(keys[previous], keys[i]):
            groups[-1].append(names[i])
        else:
            groups.append([names[i]])
        previous = i
    return tuple(tuple(sorted(group, key=names.index)) for group in groups)


def derive_state_facts(
    structure: ModelStructure,
    values: Values,
    goal: list[bool],
    unsafe: list[bool] | None,
    bottleneck_set: set[int],
    scores: list[float],
    *,
    exact: bool,
) -> list[StateFacts]:
    """Per-state facts (A*, A°, tie groups, dead ends, ...) from values: the one derivation,
    shared by the oracle and the flawed pictures of ``flawed.py``."""

    def tied(a, b) -> bool:
        return a == b if exact else abs(a - b) <= TIE_TOLERANCE

    facts = []
    for state in range(structure.size):
        labelled = [(i, c.action) for i, c in enumerate(structure.choices[state]) if c.action]
        names = [name for _, name in labelled]
        q_source = values.q_exact if exact else values.q
        keys = [q_source[state][i] for i, _ in labelled]
        order = _group_actions(names, keys, tied) if names else ()
        chosen = structure.choices[state][values.scheduler[state]].action
        value_exact = values.value_exact[state] if values.value_exact else None
        facts.append(
            StateFacts(
                id=state,
                valuation=structure.valuations[state],
                labels=structure.labels[state],
                value=values.value[state],
                danger=values.danger[state] if values.danger is not None else None,
                q={name: values.q[state][i] for i, name in labelled},
                best=order[0] if order else (),
                worst=order[-1] if order else (),
                action_order=order,
                optimal_action=chosen if names else None,
                dead_end=(value_exact == 0) if exact else values.value[state] == 0.0,
                bottleneck=state in bottleneck_set,
                centrality=scores[state],
                is_goal=goal[state],
                is_unsafe=bool(unsafe[state]) if unsafe is not None else False,
                is_initial=state == structure.initial,
                successors={
                    (c.action or "(no action)"): {t: float(p) for t, p in c.probabilities.items()}
                    for c in structure.choices[state]
                },
                value_exact=_fraction_text(value_exact),
                danger_exact=_fraction_text(values.danger_exact[state])
                if values.danger_exact
                else None,
                q_exact={name: _fraction_text(values.q_exact[state][i]) for i, name in labelled}
                if values.q_exact
                else {},
            )
        )
    return facts


def _fraction_text(value: Fraction | None) -> str | None:
    return None if value is None else str(value)

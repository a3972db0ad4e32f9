"""Assemble the oracle of one model in the current process (``isolation.py`` runs it in a child).

Order: parse and check -> build (Rational engine when small enough, else float) -> structure ->
values (exact or verified) -> derived sets (A*, A°, dead ends) -> bottlenecks -> centrality.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import bottlenecks, cache, centrality
from explaincheck.core.oracle.arrays import choice_arrays
from explaincheck.core.oracle.certificate import EXACT_CERTIFICATE, Bounds, certify
from explaincheck.core.oracle.columnar import (
    NO_ACTION,
    NOT_COMPUTED,
    ColumnarStates,
    choice_facts,
)
from explaincheck.core.oracle.sound_values import VALUE_ITERATIONS, storm_first
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.bulk import read_bulk
from explaincheck.core.oracle.storm.checking import (
    SoundBounds,
    sound_bounds,
    sound_iterations,
    transitions_of,
)
from explaincheck.core.oracle.storm.structure import ModelStructure, read_structure
from explaincheck.core.oracle.storm.types import Property, SparseModel
from explaincheck.core.oracle.types import (
    EXACT,
    VERIFIED,
    ModelSummary,
    OracleRequest,
    OracleResult,
    Progress,
    StateFacts,
)
from explaincheck.core.oracle.values import (
    TIE_TOLERANCE,
    Values,
    exact_values,
    values_of,
)

T = TypeVar("T")
COLUMNAR_FROM = 5_000  # states: verified models this large are read in bulk and kept as columns


class _Phases:
    """Reports each phase as it starts and keeps the seconds it took."""

    def __init__(self, progress: Progress | None):
        self.progress = progress or (lambda phase, **counts: None)
        self.seconds: dict[str, float] = {}
        self._current: tuple[str, float] | None = None

    def __call__(self, phase: str, **counts: int) -> None:
        self.end()
        self._current = (phase, time.perf_counter())
        self.progress(phase, **counts)

    def end(self) -> None:
        if self._current is not None:
            name, since = self._current
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - since
            self._current = None


def compute_in_process(
    request: OracleRequest,
    progress: Progress | None = None,
    *,
    columnar_from: int | None = None,
    watch: Callable[[int], None] | None = None,
) -> OracleResult:
    """Model-check ``request`` here and now (may take long or crash: prefer ``compute_oracle``).

    ``progress(phase, **counts)`` is called as each phase starts: building, structure, values,
    danger, bottlenecks, centrality, facts. Verified models of ``columnar_from`` states or more
    (default ``COLUMNAR_FROM``) are read in bulk and their facts kept as columns. ``watch`` is
    told each build's memory bound (``building.build``)."""
    started = time.perf_counter()
    phase = _Phases(progress)
    path = request.model_path
    phase("building", states=0)
    parsed = building.parse(request)
    if request.method not in ("auto", EXACT, VERIFIED):
        raise ModelError(f"unknown oracle method {request.method!r}: use auto, exact or verified")
    # The float build is cheap and tells the size, which decides whether the (much slower)
    # Rational build is affordable; small models are therefore built twice, on purpose.
    limit = request.state_limit
    model = building.build(parsed, exact=False, state_limit=limit, path=path, watch=watch)
    method = request.method
    if method == "auto":
        method = EXACT if model.nr_states <= request.exact_state_limit else VERIFIED
    if method == EXACT:
        model = building.build(parsed, exact=True, state_limit=limit, path=path, watch=watch)
    columnar = COLUMNAR_FROM if columnar_from is None else columnar_from
    if method == VERIFIED and model.nr_states >= columnar:
        return _compute_columnar(request, parsed, model, phase, started)
    phase("structure", states=model.nr_states)
    structure = read_structure(model, exact=method == EXACT)
    arrays = choice_arrays(structure)
    goal = structure.with_label(request.goal_label)
    unsafe = structure.with_label(request.unsafe_label) if parsed.has_unsafe else None
    if method == EXACT:
        phase("values", states=structure.size)
        values = exact_values(model, structure, parsed.properties, parsed.has_unsafe)
        values_method = "exact rationals (Storm's Rational engine); Q summed exactly"
    else:
        phase("values", states=structure.size)  # Storm's interval iteration is the values' phase
        storm = _storm_bounds(model, parsed)
        values = values_of(
            arrays,
            storm_first(
                arrays,
                np.array(goal, dtype=bool),
                np.array(unsafe, dtype=bool) if unsafe is not None else None,
                storm,
                phase,
            ),
        )
        values_method = values.words
    certified = None
    if method != EXACT:
        phase("certificate", states=structure.size)
        certified = _certify(arrays, goal, unsafe, values, _wider_bounds(model, parsed, storm))
    phase("bottlenecks", states=structure.size)
    bottleneck_set = bottlenecks.by_dominators_arrays(
        arrays, np.array(goal, dtype=bool), structure.initial
    )
    phase("centrality", states=structure.size)
    scores = centrality.estimate(structure.size, *arrays.edges)
    phase("facts", states=structure.size)
    states = derive_state_facts(
        structure,
        values,
        goal,
        unsafe,
        bottleneck_set,
        scores.scores.tolist(),
        exact=method == EXACT,
    )
    if certified is not None:
        states = _with_intervals(states, certified)
    warnings = list(structure.warnings) + parsed.notes
    if not parsed.has_unsafe:
        warnings.append(no_unsafe_note(request.unsafe_label, parsed.labels))
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
        content_hash=cache.request_hash(request),
    )
    return OracleResult(
        model=summary,
        states=tuple(states),
        method=method,
        tie_tolerance=0.0 if method == EXACT else TIE_TOLERANCE,
        has_danger=parsed.has_unsafe,
        warnings=tuple(warnings),
        seconds=time.perf_counter() - started,
        values_method=values_method,
        centrality_method=scores.describe(),
        phases=_finished(phase),
        certificate=EXACT_CERTIFICATE if certified is None else certified.certificate,
    )


def no_unsafe_note(label: str, labels: tuple[str, ...]) -> str:
    """The warning of a model without the unsafe label, naming the labels it has (a user who
    called theirs "crash" sees at once what to pass to --unsafe)."""
    named = ", ".join(repr(name) for name in labels) or "none"
    return (
        f"the model has no {label!r} label (its labels: {named}; --unsafe names another), so the"
        " danger D is absent and the 'safer' category does not apply"
    )


def _storm_bounds(
    model: SparseModel, parsed: building.ParsedModel
) -> tuple[SoundBounds | None, SoundBounds | None]:
    """Storm's interval-iteration bounds of Pmax [F goal] (with its scheduler) and (with
    unsafe) Pmin [F unsafe]: the values where they converge (``sound_values.storm_first``).
    Each is asked with the caps of ``VALUE_ITERATIONS`` in turn until it converges: the bounds'
    round-off allowance grows with the cap, and most models converge within the first."""
    full = sound_iterations(transitions_of(model))
    value = _converging(model, parsed.properties[0], full, scheduler=True)
    danger = None
    if parsed.has_unsafe and len(parsed.properties) > 1:
        danger = _converging(model, parsed.properties[1], full, scheduler=False)
    return value, danger


def _converging(
    model: SparseModel, prop: Property, full: int, *, scheduler: bool
) -> SoundBounds | None:
    found = None
    for cap in VALUE_ITERATIONS:
        found = sound_bounds(model, prop, iterations=min(cap, full), scheduler=scheduler)
        if found is None or found.converged or cap >= full:
            break
    return found


def _wider_bounds(
    model: SparseModel,
    parsed: building.ParsedModel,
    storm: tuple[SoundBounds | None, SoundBounds | None],
) -> tuple[SoundBounds | None, SoundBounds | None]:
    """The certificate's Storm bounds: those of ``_storm_bounds``, except that where they
    stopped unconverged on a small model Storm is run again with ``sound_iterations`` (up to
    10^5 iterations), which narrow the intersection with the own bounds."""
    full = sound_iterations(transitions_of(model))
    found = list(storm)
    for index, bounds in enumerate(found):
        if bounds is not None and not bounds.converged and bounds.iterations < full:
            found[index] = sound_bounds(model, parsed.properties[index], iterations=full)
    return found[0], found[1]


def _certify(
    arrays: Any,
    goal: Any,
    unsafe: Any,
    values: Values,
    storm: tuple[SoundBounds | None, SoundBounds | None],
) -> Bounds:
    """The bounded certificate of the per-state path's verified values."""
    return certify(
        arrays,
        np.asarray(goal, dtype=bool),
        np.asarray(unsafe, dtype=bool) if unsafe is not None else None,
        np.asarray(values.value, dtype=float),
        np.asarray(values.scheduler, dtype=np.int64),
        np.asarray(values.danger, dtype=float) if values.danger is not None else None,
        values.danger_policy,
        storm,
    )


def _with_intervals(states: list[StateFacts], bounds: Bounds) -> list[StateFacts]:
    def pair(low: np.ndarray | None, high: np.ndarray | None, i: int) -> tuple | None:
        return None if low is None or high is None else (float(low[i]), float(high[i]))

    return [
        replace(
            s,
            value_interval=pair(bounds.value_low, bounds.value_high, i),
            danger_interval=pair(bounds.danger_low, bounds.danger_high, i),
        )
        for i, s in enumerate(states)
    ]


def _compute_columnar(
    request: OracleRequest,
    parsed: building.ParsedModel,
    model: SparseModel,
    phase: _Phases,
    started: float,
) -> OracleResult:
    """The verified method on arrays from end to end: bulk read, values, bottlenecks and
    centrality on arrays, facts as columns (``ColumnarStates``)."""
    phase("structure", states=model.nr_states)
    bulk = read_bulk(model)
    arrays = bulk.arrays
    goal = bulk.with_label(request.goal_label)
    unsafe = bulk.with_label(request.unsafe_label) if parsed.has_unsafe else None
    # Centrality needs only the graph and runs in C++ without the GIL, so it runs on a second
    # thread beside values, danger and bottlenecks (the machines have two cores); the
    # "centrality" phase is then the wait for what is left of it, and "centrality (own)" is
    # its whole time.
    # Not asked for (``OracleRequest.centrality``): left to ``ColumnarStates`` to compute on
    # first need, from the same edges with the same seed.
    wanted = request.centrality
    if wanted and bulk.size > centrality.EXACT_UP_TO:
        centrality.load_sampler()  # here, not on the thread: its import holds the interpreter
    edges = arrays.edges  # made once, here, for both threads (bottlenecks read them cached)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="centrality") as beside:
        pending = beside.submit(_timed, _centrality_beside, bulk.size, edges) if wanted else None
        phase("values", states=bulk.size)
        storm = _storm_bounds(model, parsed)
        values = storm_first(arrays, goal, unsafe, storm, phase)
        phase("bottlenecks", states=bulk.size)
        bottleneck = np.zeros(bulk.size, dtype=bool)
        bottleneck[list(bottlenecks.by_dominators_arrays(arrays, goal, bulk.initial))] = True
        scores = None
        if pending is not None:
            phase("centrality", states=bulk.size)
            own_seconds, scores = pending.result()
            phase.seconds["centrality (own)"] = own_seconds
    phase("certificate", states=bulk.size)
    certified = certify(
        arrays,
        goal,
        unsafe,
        values.value,
        values.scheduler,
        values.danger,
        values.danger_policy,
        _wider_bounds(model, parsed, storm),
    )
    phase("facts", states=bulk.size)
    states = ColumnarStates(
        first_row=arrays.first_row,
        row_offsets=arrays.rows.indptr.astype(np.int64),
        columns=arrays.rows.indices.astype(np.int64),
        probabilities=arrays.rows.data,
        action_code=bulk.action_code,
        action_names=bulk.action_names,
        label_names=bulk.label_names,
        label_bits=np.stack([bulk.labels[name] for name in bulk.label_names])
        if bulk.label_names
        else np.zeros((0, bulk.size), dtype=bool),
        variables=tuple(bulk.valuations),
        valuation_columns=tuple(bulk.valuations.values()),
        value=values.value,
        danger=values.danger,
        q=values.q,
        scheduler=values.scheduler,
        bottleneck=bottleneck,
        centrality=np.asarray(scores.scores, dtype=float) if scores is not None else None,
        goal=goal,
        unsafe=unsafe if unsafe is not None else np.zeros(bulk.size, dtype=bool),
        initial=bulk.initial,
        tie_tolerance=TIE_TOLERANCE,
        value_low=certified.value_low,
        value_high=certified.value_high,
        danger_low=certified.danger_low,
        danger_high=certified.danger_high,
        centrality_method=scores.describe() if scores is not None else NOT_COMPUTED,
    )
    warnings = list(bulk.warnings) + parsed.notes
    if not parsed.has_unsafe:
        warnings.append(no_unsafe_note(request.unsafe_label, parsed.labels))
    used = np.unique(bulk.action_code[bulk.action_code >= 0]).tolist()
    summary = ModelSummary(
        path=str(request.model_path),
        constants=request.constants,
        goal_label=request.goal_label,
        unsafe_label=request.unsafe_label,
        states=bulk.size,
        choices=int(arrays.first_row[-1]),
        transitions=int(arrays.rows.nnz),
        initial=bulk.initial,
        variables=tuple(bulk.valuations),
        labels=tuple(sorted(parsed.labels)),
        actions=tuple(sorted(bulk.action_names[i] for i in used)),
        content_hash=cache.request_hash(request),
    )
    return OracleResult(
        model=summary,
        states=states,
        method=VERIFIED,
        tie_tolerance=TIE_TOLERANCE,
        has_danger=parsed.has_unsafe,
        warnings=tuple(warnings),
        seconds=time.perf_counter() - started,
        values_method=values.words,
        centrality_method=states.centrality_method,
        phases=_finished(phase),
        certificate=certified.certificate,
    )


def _centrality_beside(size: int, edges: tuple[np.ndarray, np.ndarray]) -> centrality.Centrality:
    """Centrality at a lower scheduling priority (its sampler threads, started from this
    thread, inherit it): the values on the main thread keep a core, and the sampler takes
    both cores once they are done."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux: only the overlap is lost
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    return centrality.estimate(size, *edges)


def _timed(function: Callable[..., T], *arguments: Any) -> tuple[float, T]:
    """(seconds, result) of ``function(*arguments)``."""
    started = time.perf_counter()
    result = function(*arguments)
    return time.perf_counter() - started, result


def _finished(phase: _Phases) -> dict[str, float]:
    phase.end()
    return dict(phase.seconds)


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

    def tied(a: float | Fraction, b: float | Fraction) -> bool:
        return a == b if exact else abs(float(a) - float(b)) <= TIE_TOLERANCE

    facts = []
    for state in range(structure.size):
        choices = structure.choices[state]
        labelled = [(i, c.action) for i, c in enumerate(choices) if c.action]
        keys = None  # the Q to order by: exact ones under the exact method
        if exact:
            assert values.q_exact is not None  # exact values carry exact Q
            keys = values.q_exact[state]
        value_exact = values.value_exact[state] if values.value_exact else None
        facts.append(
            StateFacts(
                id=state,
                valuation=structure.valuations[state],
                labels=structure.labels[state],
                value=values.value[state],
                danger=values.danger[state] if values.danger is not None else None,
                dead_end=(value_exact == 0) if exact else values.value[state] == 0.0,
                bottleneck=state in bottleneck_set,
                centrality=scores[state],
                is_goal=goal[state],
                is_unsafe=bool(unsafe[state]) if unsafe is not None else False,
                is_initial=state == structure.initial,
                **choice_facts(
                    [c.action for c in choices],
                    values.q[state],
                    [{t: float(p) for t, p in c.probabilities.items()} for c in choices],
                    values.scheduler[state],
                    tied,
                    keys,
                ),
                value_exact=_fraction_text(value_exact),
                danger_exact=_fraction_text(values.danger_exact[state])
                if values.danger_exact
                else None,
                q_exact={name: str(values.q_exact[state][i]) for i, name in labelled}
                if values.q_exact
                else {},
                successors_exact={
                    (c.action or NO_ACTION): {t: str(p) for t, p in c.probabilities.items()}
                    for c in choices
                }
                if exact
                else {},
            )
        )
    return facts


def _fraction_text(value: Fraction | None) -> str | None:
    return None if value is None else str(value)

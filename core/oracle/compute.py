"""The oracle of one model, computed in the current process (``isolation.py`` runs it in a child).

One pipeline for every size, over one state representation (the model's columns, and the facts
derived from them as columns: ``columnar.ColumnarStates``). Each phase is one function below,
called once, from ``compute_in_process``:

parse and check -> build (Rational engine when small enough, else float) -> structure (the model
read in bulk) -> values (Storm's engines first; a user's property other than Pmax [F φ] by Storm's
check of it, ``property_answers``, a deadline over the product with the steps left) -> choices
(A*, A°, dead ends, do-nothing, in the property's direction) -> bottlenecks -> certificate ->
centrality (on request; exact on small models) -> facts (the result).

A small result is handed on as the tuple of its states' facts, a large one as the columns that
make a state's facts when asked (``COLUMNAR_FROM``); both come from the same columns.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import bottlenecks, cache, centrality
from explaincheck.core.oracle.certificate import EXACT_CERTIFICATE, Bounds, certify
from explaincheck.core.oracle.choices import ChoiceColumns, choice_columns
from explaincheck.core.oracle.columnar import NOT_COMPUTED, ColumnarStates
from explaincheck.core.oracle.objective import MAX, MIN, Objective
from explaincheck.core.oracle.property import BOUNDED
from explaincheck.core.oracle.property_answers import (
    PropertyAnswers,
    asked_property,
    dead_end_column,
    deadline_product,
    property_answers,
    property_arrays,
    property_bounds,
)
from explaincheck.core.oracle.property_values import without_exits
from explaincheck.core.oracle.sound_values import StormAnswers, storm_answers, values_from
from explaincheck.core.oracle.storm import building, wellformed
from explaincheck.core.oracle.storm.bulk import BulkModel, read_bulk
from explaincheck.core.oracle.storm.types import SparseModel
from explaincheck.core.oracle.types import (
    EXACT,
    VERIFIED,
    ModelSummary,
    OracleRequest,
    OracleResult,
    Progress,
)
from explaincheck.core.oracle.values import (
    TIE_TOLERANCE,
    ExactAnswers,
    ValueArrays,
    exact_answers,
    exact_arrays,
)

if TYPE_CHECKING:
    from concurrent.futures import Future

COLUMNAR_FROM = 5_000  # states: results this large stay columns, each state made when asked


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

    def finished(self) -> dict[str, float]:
        self.end()
        return dict(self.seconds)


def compute_in_process(
    request: OracleRequest,
    progress: Progress | None = None,
    *,
    columnar_from: int | None = None,
    watch: Any = None,
) -> OracleResult:
    """Model-check ``request`` here and now (may take long or crash: prefer ``compute_oracle``).

    ``progress(phase, **counts)`` is called as each phase starts: building, structure, values,
    danger, choices, bottlenecks, certificate, centrality, facts. Results of ``columnar_from``
    states or more (default ``COLUMNAR_FROM``) keep their facts as columns, smaller ones are
    handed on as a tuple of facts. ``watch`` is told each build's memory bound
    (``building.build``)."""
    started = time.perf_counter()
    phase = _Phases(progress)
    parsed = _parse(request, phase)
    model, method = _build(request, parsed, phase, watch)
    limit = COLUMNAR_FROM if columnar_from is None else columnar_from
    table = _structure(model, request, parsed, method, phase)
    pending = _start_centrality(table, request, limit)
    objectives = _objectives(parsed, table, request)
    storm = _storm(model, request, parsed, table, objectives, method, phase)
    del model  # Storm's copy of the matrix is freed before ours is filled in
    table, storm = _product(table, storm, phase)
    values = _values(table, objectives, storm, phase)
    choices = _choices(table, values, storm, phase)
    bottleneck = _bottlenecks(table, objectives, storm, phase)
    bounds = _certificate(table, objectives, values, storm, method, phase)
    scores = _centrality(pending, phase)
    return _facts(
        request, parsed, table, objectives, values, storm, choices, bottleneck, bounds, scores,
        method, phase, started, limit,
    )  # fmt: skip


def _parse(request: OracleRequest, phase: _Phases) -> building.ParsedModel:
    """Parse and check: the file, the method asked for, the labels and constants."""
    phase("building", states=0)
    if request.method not in ("auto", EXACT, VERIFIED):
        raise ModelError(f"unknown oracle method {request.method!r}: use auto, exact or verified")
    return building.parse(request)


def _build(
    request: OracleRequest, parsed: building.ParsedModel, phase: _Phases, watch: Any
) -> tuple[SparseModel, str]:
    """Storm's model and the method it is checked by. The float build is cheap and tells the
    size, which decides whether the (much slower) Rational build is affordable; small models
    are therefore built twice, on purpose."""
    path, limit = request.model_path, request.state_limit
    model = building.build(
        parsed, exact=False, state_limit=limit, path=path, watch=watch, rows_read_later=True
    )
    method = request.method
    if method == "auto":
        method = EXACT if model.nr_states <= request.exact_state_limit else VERIFIED
    if method == EXACT:
        model = building.build(parsed, exact=True, state_limit=limit, path=path, watch=watch)
    return model, method


def _structure(
    model: SparseModel,
    request: OracleRequest,
    parsed: building.ParsedModel,
    method: str,
    phase: _Phases,
) -> BulkModel:
    """The model as columns: its matrix, action names, labels and valuations read in bulk (an
    exact model's probabilities also as fractions; a float model's once Storm's is freed), the
    rows' sums checked where the build left them (a rounding model)."""
    phase("structure", states=model.nr_states)
    table = read_bulk(model, exact=method == EXACT, deferred=True)
    if parsed.unchecked_rows and method != EXACT:  # the Rational build checked its own
        wellformed.check_sums(table.arrays.rows.indptr, table.probabilities(), request.model_path)
    return table


def _objectives(
    parsed: building.ParsedModel, table: BulkModel, request: OracleRequest
) -> list[Objective]:
    """What the values phase computes: V = Pmax [F goal] with its scheduler, and where the
    model has an unsafe set D = Pmin [F unsafe]. A user's other property is Storm's check of
    it instead (``_storm``); V's objective then only names its target."""
    found = [Objective("V", MAX, table.with_label(request.goal_label), parsed.properties[0], True)]
    if parsed.has_unsafe:
        unsafe = table.with_label(request.unsafe_label)
        found.append(Objective("D", MIN, unsafe, parsed.properties[1]))
    return found


Answers = StormAnswers | ExactAnswers | PropertyAnswers  # what Storm said, per method and property


def _storm(
    model: SparseModel,
    request: OracleRequest,
    parsed: building.ParsedModel,
    table: BulkModel,
    objectives: list[Objective],
    method: str,
    phase: _Phases,
) -> Answers:
    """Storm's answers for each objective while its model is alive: fractions from its
    Rational engine, or its sound engines' bounds and scheduler (``sound_values``); for a
    user's property other than Pmax [F φ], Storm's check of it (``property_answers``)."""
    prop = asked_property(request.property)
    if prop is not None:
        phase("values", states=table.size)
        unsafe = parsed.formula(1) if parsed.has_unsafe else None
        path = str(request.model_path)
        return property_answers(model, parsed.program, prop, unsafe, method == EXACT, path)
    if method == EXACT:
        phase("values", states=table.size)
        return exact_answers(model, objectives, table.size)
    return storm_answers(model, table.arrays, objectives, phase)


def _product(table: BulkModel, storm: Answers, phase: _Phases) -> tuple[BulkModel, Answers]:
    """A deadline ([F<=k φ]): the product of the model with the steps left replaces its columns
    (``property_answers.deadline_product``: the best action depends on the steps left, so they
    are part of the state); any other property keeps the model."""
    if not isinstance(storm, PropertyAnswers) or storm.prop.kind != BOUNDED:
        return table, storm
    table.load_probabilities()
    phase("product", states=table.size)
    return deadline_product(table, storm)


def _values(
    table: BulkModel,
    objectives: list[Objective],
    storm: Answers,
    phase: _Phases,
) -> ValueArrays:
    """Each objective's value per state, Q per choice and the optimal scheduler, from Storm's
    answers; the project's policy iteration only where Storm's engines stopped short."""
    table.load_probabilities()
    if isinstance(storm, PropertyAnswers):
        return property_arrays(table.arrays, table.exact_probabilities, storm)
    if isinstance(storm, ExactAnswers):
        assert table.exact_probabilities is not None  # read so under the exact method
        return exact_arrays(table.arrays, table.exact_probabilities, storm)
    return values_from(table.arrays, objectives, storm, phase)


def _choices(
    table: BulkModel, values: ValueArrays, storm: Answers, phase: _Phases
) -> ChoiceColumns:
    """A*, A° and the do-nothing choices of every state, as columns over the choices (best
    first in the property's direction: the lowest Q under a minimising one)."""
    phase("choices", states=table.size)
    tolerance = TIE_TOLERANCE if values.q_exact is None else 0.0
    q, q_exact = values.q, values.q_exact
    if isinstance(storm, PropertyAnswers) and not storm.maximising:
        q = -q
        q_exact = [-x for x in q_exact] if q_exact is not None else None
    return choice_columns(table.arrays, table.action_code, q, tolerance, q_exact)


def _bottlenecks(
    table: BulkModel, objectives: list[Objective], storm: Answers, phase: _Phases
) -> np.ndarray:
    """Per state, whether every path from the initial state to the goal passes it (under
    [φ U ψ], on the model whose states outside φ have no exit: a run that leaves φ failed)."""
    phase("bottlenecks", states=table.size)
    arrays, target = table.arrays, objectives[0].target
    if isinstance(storm, PropertyAnswers):
        target = storm.checked.target
        if storm.checked.stay is not None:
            arrays = without_exits(arrays, storm.ended & ~target)
    return bottlenecks.bottleneck_column(arrays, target, table.initial)


def _certificate(
    table: BulkModel,
    objectives: list[Objective],
    values: ValueArrays,
    storm: Answers,
    method: str,
    phase: _Phases,
) -> Bounds | None:
    """How each value was obtained: exact fractions (None), or sound intervals (for a user's
    property, Storm's bounds of it)."""
    if method == EXACT:
        return None
    phase("certificate", states=table.size)
    if isinstance(storm, PropertyAnswers):
        certificate, (low, high), danger = property_bounds(table.arrays, storm, values)
        return Bounds(certificate, low, high, *(danger or (None, None)))
    unsafe = objectives[1].target if len(objectives) > 1 else None
    return certify(
        table.arrays,
        objectives[0].target,
        unsafe,
        values.value,
        values.scheduler,
        values.danger,
        values.danger_policy,
        values.storm,
    )


def _start_centrality(
    table: BulkModel, request: OracleRequest, columnar_from: int
) -> Future | None:
    """C_B on a second thread beside the values, where it is asked for or the result is handed
    on as facts (below ``columnar_from`` states); None leaves it to be computed on first need
    (``ColumnarStates.centrality_scores``, from the same edges with the same seed)."""
    if not request.centrality and table.size >= columnar_from:
        return None
    if request.property is not None and request.property.kind == BOUNDED:
        return None  # its states are the product's, made later: scores on first need
    if table.size > centrality.EXACT_UP_TO:
        centrality.load_sampler()  # here, not on the thread: its import holds the interpreter
    edges = table.arrays.edges  # made once, here, for both threads (bottlenecks read them)
    from concurrent.futures import ThreadPoolExecutor  # here: only a run with centrality needs it

    beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="centrality")
    pending = beside.submit(_timed_centrality, table.size, edges)
    beside.shutdown(wait=False)
    return pending


def _centrality(pending: Future | None, phase: _Phases) -> centrality.Centrality | None:
    """The wait for what is left of the centrality; "centrality (own)" is its whole time."""
    if pending is None:
        return None
    phase("centrality")
    seconds, scores = pending.result()
    phase.seconds["centrality (own)"] = seconds
    return scores


def _timed_centrality(
    size: int, edges: tuple[np.ndarray, np.ndarray]
) -> tuple[float, centrality.Centrality]:
    """Centrality at a lower scheduling priority (its sampler threads, started from this
    thread, inherit it): the values on the main thread keep a core, and the sampler takes
    both cores once they are done. Returns (seconds, scores)."""
    started = time.perf_counter()
    with contextlib.suppress(AttributeError, OSError):  # not Linux: only the overlap is lost
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    found = centrality.estimate(size, *edges)
    return time.perf_counter() - started, found


def _facts(
    request: OracleRequest,
    parsed: building.ParsedModel,
    table: BulkModel,
    objectives: list[Objective],
    values: ValueArrays,
    storm: Answers,
    choices: ChoiceColumns,
    bottleneck: np.ndarray,
    bounds: Bounds | None,
    scores: centrality.Centrality | None,
    method: str,
    phase: _Phases,
    started: float,
    columnar_from: int,
) -> OracleResult:
    """The result: the columns as ``ColumnarStates`` (a tuple of facts below ``columnar_from``
    states), the model's summary, warnings and how every number was obtained."""
    phase("facts", states=table.size)
    arrays = table.arrays
    exact = values.value_exact is not None
    asked = storm if isinstance(storm, PropertyAnswers) else None
    labels = _labels(table, asked)
    states = ColumnarStates(
        first_row=arrays.first_row,
        row_offsets=arrays.rows.indptr,
        columns=arrays.rows.indices,
        probabilities=arrays.rows.data,
        action_code=table.action_code,
        action_names=table.action_names,
        label_names=tuple(labels),
        label_bits=np.stack(list(labels.values()))
        if labels
        else np.zeros((0, table.size), dtype=bool),
        variables=tuple(table.valuations),
        valuation_columns=tuple(table.valuations.values()),
        value=values.value,
        danger=values.danger,
        q=values.q,
        scheduler=values.scheduler,
        bottleneck=bottleneck,
        centrality=np.asarray(scores.scores, dtype=float) if scores is not None else None,
        goal=asked.checked.target if asked is not None else objectives[0].target,
        unsafe=table.with_label(request.unsafe_label)  # the objective's, or the product's
        if parsed.has_unsafe
        else np.zeros(table.size, dtype=bool),
        initial=table.initial,
        tie_tolerance=0.0 if exact else TIE_TOLERANCE,
        dead_end=dead_end_column(asked, values) if asked is not None else _dead_ends(values),
        best_row=choices.best,
        worst_row=choices.worst,
        do_nothing_row=choices.do_nothing,
        value_low=bounds.value_low if bounds is not None else None,
        value_high=bounds.value_high if bounds is not None else None,
        danger_low=bounds.danger_low if bounds is not None else None,
        danger_high=bounds.danger_high if bounds is not None else None,
        centrality_method=scores.describe() if scores is not None else NOT_COMPUTED,
        value_exact=_text_column(values.value_exact),
        danger_exact=_text_column(values.danger_exact),
        q_exact=_text_column(values.q_exact),
        probabilities_exact=_text_column(table.exact_probabilities),
        maximising=asked is None or asked.maximising,
        **_reward_columns(asked),
    )
    warnings = list(table.warnings) + parsed.notes
    if not parsed.has_unsafe:
        warnings.append(no_unsafe_note(request.unsafe_label, parsed.labels))
    used = np.unique(table.action_code[table.action_code >= 0]).tolist()
    summary = ModelSummary(
        path=str(request.model_path),
        constants=request.constants,
        goal_label=request.goal_label,
        unsafe_label=request.unsafe_label,
        states=table.size,
        choices=int(arrays.first_row[-1]),
        transitions=int(arrays.rows.nnz),
        initial=table.initial,
        variables=tuple(table.valuations),
        labels=tuple(sorted(parsed.labels)),
        actions=tuple(sorted(table.action_names[i] for i in used)),
        content_hash=cache.request_hash(request),
        property=request.property,
    )
    described = states.centrality_method
    handed = states if table.size >= columnar_from else states.materialised()
    return OracleResult(
        model=summary,
        states=handed,
        method=method,
        tie_tolerance=states.tie_tolerance,
        has_danger=parsed.has_unsafe,
        warnings=tuple(warnings),
        seconds=time.perf_counter() - started,
        values_method=values.words,
        centrality_method=described,
        phases=phase.finished(),
        certificate=EXACT_CERTIFICATE if bounds is None else bounds.certificate,
    )


def no_unsafe_note(label: str, labels: tuple[str, ...]) -> str:
    """The warning of a model without the unsafe label, naming the labels it has (a user who
    called theirs "crash" sees at once what to pass to --unsafe)."""
    named = ", ".join(repr(name) for name in labels) or "none"
    return (
        f"the model has no {label!r} label (its labels: {named}; --unsafe names another), so the"
        " danger D is absent and the 'safer' category does not apply"
    )


def _labels(table: BulkModel, asked: PropertyAnswers | None) -> dict[str, np.ndarray]:
    """The states' labels by name, sorted; under [φ U ψ] also φ's states under the property's
    stay label (a label already, or the formula's text, as an expression goal is labelled)."""
    labels = {name: table.labels[name] for name in table.label_names}
    if asked is not None and asked.checked.stay is not None:
        labels[asked.prop.stay_label] = asked.checked.stay
    return dict(sorted(labels.items()))


def _reward_columns(asked: PropertyAnswers | None) -> dict[str, Any]:
    """A reward property's rewards per row, and where the run has ended (no rewards there)."""
    if asked is None or asked.checked.rewards is None:
        return {}
    rewards_exact = asked.checked.rewards_exact
    return {
        "rewards": asked.checked.rewards,
        "rewards_exact": _text_column(rewards_exact),
        "ended": asked.ended,
    }


def _dead_ends(values: ValueArrays) -> np.ndarray:
    """V = 0: exactly under the exact method (a fraction too small for a float is no zero)."""
    if values.value_exact is not None:
        return np.array([v == 0 for v in values.value_exact], dtype=bool)
    return values.value == 0.0


def _text_column(found: list | None) -> np.ndarray | None:
    """Fractions as a column of "num/den" texts (None stays None)."""
    return None if found is None else np.array([str(x) for x in found], dtype=str)  # inf: "inf"

"""The verified method's values: Storm's sound engines first, the project's policy iteration only
where none of them converges (issue 33.10-11, issue 48.2).

Per objective (``objective.py``: V = Pmax [F goal], D = Pmin [F unsafe]), Storm is asked in turn:

1. its topological engine (Storm's default sound one), where the model has no cycle but
   self-loops (``graph_analysis.acyclic_depth``): it then solves each state once, from its
   successors, in topological order, so a value's float error is at most the model's depth
   times one step's round-off, and the check costs about one pass over the matrix (at 10^6
   states a quarter of interval iteration's time);
2. interval iteration (``storm.checking.sound_bounds``), with the caps of ``VALUE_ITERATIONS``
   tried in turn while the bounds can still meet in time (``_converging``).

Where Storm's bounds are at most ``VALUE_WIDTH`` apart once widened by their float round-off,
the value is their midpoint (off by at most half that width, ``TIE_TOLERANCE`` / 10), the
optimal choice is Storm's scheduler, Q is one sparse product P·V, and policy iteration is not
run at all. Where Storm stopped unconverged (a slippery gridworld's near-end components), V comes
from policy iteration started from Storm's scheduler, D from policy iteration started from V's
optimal policy (``values.value_by_iteration``, ``values.danger_by_iteration``), and the
certificate intersects both sources (``certificate.certify``). V = 0 and V = 1 are pinned by
graph analysis either way, so dead ends stay exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from explaincheck.core.oracle.arrays import ChoiceArrays, reaching
from explaincheck.core.oracle.certificate import storm_round_off
from explaincheck.core.oracle.complement import (
    COMPLEMENT,
    complement_bounds,
    ends_in_goal_or_unsafe,
)
from explaincheck.core.oracle.graph_analysis import acyclic_depth
from explaincheck.core.oracle.objective import MAX, Objective
from explaincheck.core.oracle.storm.checking import (
    SOUND_PRECISION,
    TOPOLOGICAL,
    SoundBounds,
    sound_bounds,
    sound_iterations,
    transitions_of,
)
from explaincheck.core.oracle.storm.types import Property, SparseModel
from explaincheck.core.oracle.values import (
    START,
    STORM_START,
    TIE_TOLERANCE,
    ValueArrays,
    danger_by_iteration,
    value_by_iteration,
)

if TYPE_CHECKING:
    from explaincheck.core.oracle.types import Progress

VALUE_WIDTH = 2 * TIE_TOLERANCE / 10  # widest widened bounds whose midpoint is taken as the value
# Storm's iteration caps when its values are wanted, tried in turn until its bounds converge
# (their round-off allowance grows with the cap: 500 iterations on rows of 4 entries widen each
# bound by 1.3e-12, 10^4 by 2.7e-11; the built-ins and the key grids converge within 500)
VALUE_ITERATIONS = (500, 10_000)
# The topological engine's round-off allowance grows with the depth; past this many steps it
# passes VALUE_WIDTH on rows of a few entries, so deeper models go to interval iteration.
TOPOLOGICAL_DEPTH = 50_000


def storm_answers(
    model: SparseModel,
    arrays: ChoiceArrays,
    objectives: list[Objective],
    progress: Progress | None = None,
) -> StormAnswers:
    """Storm's sound bounds of each objective (``storm_bounds``; the first with its
    scheduler), asked while Storm's model is alive: ``arrays`` needs only its pattern."""
    report = progress or (lambda phase, **counts: None)
    depth = acyclic_depth(arrays, TOPOLOGICAL_DEPTH)
    found: list[SoundBounds | None] = []
    for index, objective in enumerate(objectives):
        report("values" if index == 0 else "danger", states=arrays.size)
        if index and _is_complement(arrays, objectives, found[0], depth):
            assert found[0] is not None  # usable
            found.append(complement_bounds(found[0]))
        else:
            found.append(storm_bounds(model, objective, depth, arrays))
    return StormAnswers(found, depth)


def _is_complement(
    arrays: ChoiceArrays,
    objectives: list[Objective],
    value: SoundBounds | None,
    depth: int | None,
) -> bool:
    """Whether D's bounds are V's turned around (``complement``): V's are usable and every run
    ends in the goal or an unsafe state and never reaches the other kind after."""
    if not usable(value, arrays):
        return False
    goal, unsafe = objectives[0].target, objectives[1].target
    return ends_in_goal_or_unsafe(arrays, goal, unsafe, acyclic=depth is not None)


def values_from(
    arrays: ChoiceArrays,
    objectives: list[Objective],
    storm: StormAnswers,
    progress: Progress | None = None,
) -> ValueArrays:
    """Each objective's values, Q of the first and the optimal scheduler: Storm's bounds where
    ``usable``, else policy iteration (V from Storm's scheduler, D from V's optimal policy);
    ``words`` says which, per objective. ``arrays`` holds the probabilities by now."""
    report = progress or (lambda phase, **counts: None)
    value_objective, *rest = objectives
    storm_value, *storm_rest = storm.bounds
    words = []
    if usable(storm_value, arrays) and storm_value is not None:
        assert storm_value.scheduler is not None  # asked for with the values' bounds
        value = _pinned(arrays, value_objective, midpoint(storm_value))
        q = arrays.rows @ value
        scheduler = np.maximum(np.minimum(storm_value.scheduler, np.diff(arrays.first_row) - 1), 0)
        residual = bellman_residual(arrays, q, value)
        rounds = 0
        words.append(_storm_words(value_objective, storm_value, arrays, storm.depth))
    else:
        report("values", states=arrays.size)
        start = storm_value.scheduler if storm_value is not None else None
        factorisers: list[str] = []
        value, q, scheduler, residual, rounds = value_by_iteration(
            arrays, value_objective.target, start, factorisers
        )
        words.append(
            _iteration_words(
                value_objective.name, rounds, residual, storm_value, factorisers, start
            )
        )
    danger = danger_policy = storm_danger = None
    rounds_danger = 0
    for objective, storm_danger in zip(rest, storm_rest, strict=True):
        if usable(storm_danger, arrays) and storm_danger is not None:
            danger = _pinned(arrays, objective, midpoint(storm_danger))
            words.append(_storm_words(objective, storm_danger, arrays, storm.depth))
        else:
            report("danger", states=arrays.size)
            factorisers_d: list[str] = []
            danger, danger_policy, residual_d, rounds_danger = danger_by_iteration(
                arrays, objective.target, scheduler, factorisers_d
            )
            residual = max(residual, residual_d)
            words.append(
                _iteration_words(
                    objective.name, rounds_danger, residual_d, storm_danger, factorisers_d
                )
            )
    words.append("Q = P·V in one sparse product")
    return ValueArrays(
        value,
        danger,
        q,
        scheduler,
        residual,
        rounds + rounds_danger,
        rounds_danger,
        danger_policy,
        "; ".join(words),
        storm=(storm_value, storm_danger),
    )


@dataclass(frozen=True)
class StormAnswers:
    """What Storm's sound engines said of each objective (None: no bounds), and the model's
    depth where it has no cycle but self-loops (None otherwise)."""

    bounds: list[SoundBounds | None]
    depth: int | None


def storm_bounds(
    model: SparseModel, objective: Objective, depth: int | None, arrays: ChoiceArrays
) -> SoundBounds | None:
    """Storm's sound bounds of ``objective``: its topological engine where the model has no
    cycle (``depth``: its depth, else None) and they are usable, else interval iteration with
    the caps of ``VALUE_ITERATIONS`` (``_converging``)."""
    if depth is not None:
        found = sound_bounds(
            model,
            objective.prop,
            iterations=VALUE_ITERATIONS[-1],
            scheduler=objective.scheduler,
            engine=TOPOLOGICAL,
            first_row=arrays.first_row,
        )
        if found is not None:
            found = replace(found, iterations=depth + 1)  # one step per state on a path
            if usable(found, arrays):
                return found
    full = sound_iterations(transitions_of(model))
    return _converging(model, objective.prop, full, objective.scheduler, arrays.first_row)


def _converging(
    model: SparseModel, prop: Property, full: int, scheduler: bool, first_row: np.ndarray
) -> SoundBounds | None:
    """Interval iteration with the caps of ``VALUE_ITERATIONS`` (at most ``full``) in turn,
    until its bounds converge or their narrowing so far says the next cap would not be enough
    (a geometric shrink from width 1 at the same rate)."""
    found = None
    for cap in VALUE_ITERATIONS:
        iterations = min(cap, full)
        found = sound_bounds(
            model, prop, iterations=iterations, scheduler=scheduler, first_row=first_row
        )
        if found is None or found.converged or cap >= full or not _may_converge(found, full):
            break
    return found


def _may_converge(found: SoundBounds, most: int) -> bool:
    """Whether bounds that shrank to their width in ``found.iterations`` would, shrinking on at
    that rate, meet the precision within ``most`` iterations (the next cap): a slippery grid's
    bounds stay 0.2 apart after 500 iterations, where 10^4 more would only cost time."""
    width = float(np.max(found.upper - found.lower, initial=0.0))
    if width <= 0.0 or width >= 1.0:
        return width <= 0.0
    needed = found.iterations * math.log(2 * SOUND_PRECISION) / math.log(width)
    return needed <= most


def usable(bounds: SoundBounds | None, arrays: ChoiceArrays) -> bool:
    """Whether ``bounds`` are tight enough to be the values: converged, and no wider than
    ``VALUE_WIDTH`` with their round-off added on both sides."""
    if bounds is None or not bounds.converged:
        return False
    width = float(np.max(bounds.upper - bounds.lower, initial=0.0))
    return width + 2 * storm_round_off(arrays, bounds.iterations) <= VALUE_WIDTH


def midpoint(bounds: SoundBounds) -> np.ndarray:
    """The middle of each state's bounds, in [0, 1]."""
    return np.clip(0.5 * (bounds.lower + bounds.upper), 0.0, 1.0)


def _pinned(arrays: ChoiceArrays, objective: Objective, value: np.ndarray) -> np.ndarray:
    """``value`` with the graph facts set exactly: 1 on the target, and for a maximum 0 where no
    path reaches it."""
    value[objective.target] = 1.0
    if objective.direction == MAX:
        value[~reaching(arrays.state_graph, objective.target)] = 0.0
    return value


def bellman_residual(arrays: ChoiceArrays, q: np.ndarray, value: np.ndarray) -> float:
    """max over states with choices of |max_a Q(s, a) - V(s)|."""
    has_rows = np.diff(arrays.first_row) > 0
    if not has_rows.any():
        return 0.0
    best = np.maximum.reduceat(q, arrays.first_row[:-1][has_rows])
    return float(np.max(np.abs(best - value[has_rows]), initial=0.0))


def _storm_words(
    objective: Objective, bounds: SoundBounds, arrays: ChoiceArrays, depth: int | None
) -> str:
    width = float(np.max(bounds.upper - bounds.lower, initial=0.0))
    error = width / 2 + storm_round_off(arrays, bounds.iterations)
    if bounds.engine == COMPLEMENT:
        return (
            f"{objective.name} = 1 − V (every run ends in the goal or an unsafe state and"
            f" never reaches the other kind after: no second check; error ≤ {error:.1e})"
        )
    scheduler = ", Storm's scheduler" if objective.scheduler else ""
    engine = (
        f"Storm's topological engine (no cycle but self-loops: each state solved once, depth"
        f" {depth:,})"
        if bounds.engine == TOPOLOGICAL and depth is not None
        else "Storm's interval iteration"
    )
    return (
        f"{objective.name}: {engine} to {SOUND_PRECISION:g}, the midpoint of its sound"
        f" bounds (error ≤ {error:.1e}){scheduler}"
    )


def _iteration_words(
    name: str,
    rounds: int,
    residual: float,
    bounds: SoundBounds | None,
    factorisers: list[str],
    start: np.ndarray | None = None,
) -> str:
    """How policy iteration got ``name``'s values: from where, why, its rounds (and the
    factorisers that solved them, in the order they took over), its residual."""
    why = (
        "Storm gave no bounds"
        if bounds is None
        else "Storm's interval iteration stopped unconverged"
        if not bounds.converged
        else "Storm's bounds too wide once widened by their round-off"
    )
    origin = (STORM_START if start is not None else START) if name == "V" else "V's policy"
    return (
        f"{name}: policy iteration from {origin} ({why}): {rounds} sparse direct solves"
        f" ({', then '.join(dict.fromkeys(factorisers))}), Bellman residual {residual:.1e}"
    )

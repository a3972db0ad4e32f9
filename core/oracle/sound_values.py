"""The verified method's V, Q and D: Storm's sound bounds first, policy iteration where they
stop short (issue 33.10-11).

Storm's interval iteration brackets each value from below and above (``SoundBounds``). Where
its bounds are at most ``VALUE_WIDTH`` apart once widened by their float round-off, the value
is their midpoint (so it is off by at most half that width, ``TIE_TOLERANCE`` / 10), the
optimal choice is Storm's scheduler, Q is one sparse product P·V, and policy iteration is not
run at all: at 10^6 states it took tens of sparse LU solves (703 s) where Storm takes seconds.
Where Storm stopped unconverged (a slippery gridworld's near-end components), V or D comes from
policy iteration as before (``values.value_by_iteration``, ``values.danger_by_iteration``), and
the certificate intersects both sources (``certificate.certify``). V = 0 and V = 1 are pinned by
graph analysis either way, so dead ends stay exact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from explaincheck.core.oracle.arrays import ChoiceArrays, reaching
from explaincheck.core.oracle.certificate import storm_round_off
from explaincheck.core.oracle.storm.checking import SOUND_PRECISION, SoundBounds
from explaincheck.core.oracle.values import (
    START,
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
# bound by 1.3e-12, 10^4 by 2.7e-11; the built-ins and the drifting grids converge within 500)
VALUE_ITERATIONS = (500, 10_000)


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


def bellman_residual(arrays: ChoiceArrays, q: np.ndarray, value: np.ndarray) -> float:
    """max over states with choices of |max_a Q(s, a) - V(s)|."""
    has_rows = np.diff(arrays.first_row) > 0
    if not has_rows.any():
        return 0.0
    best = np.maximum.reduceat(q, arrays.first_row[:-1][has_rows])
    return float(np.max(np.abs(best - value[has_rows]), initial=0.0))


def storm_first(
    arrays: ChoiceArrays,
    goal: np.ndarray,
    unsafe: np.ndarray | None,
    storm: tuple[SoundBounds | None, SoundBounds | None],
    progress: Progress | None = None,
) -> ValueArrays:
    """V, Q, the optimal scheduler (and D when ``unsafe`` is given) from Storm's bounds where
    ``usable``, else by policy iteration; ``words`` says which."""
    report = progress or (lambda phase, **counts: None)
    storm_value, storm_danger = storm
    report("values", states=arrays.size)
    words = []
    if usable(storm_value, arrays) and storm_value is not None:
        assert storm_value.scheduler is not None  # asked for with the values' bounds
        value = midpoint(storm_value)
        value[goal] = 1.0
        value[~reaching(arrays.state_graph, goal)] = 0.0
        q = arrays.rows @ value
        scheduler = np.minimum(storm_value.scheduler, np.diff(arrays.first_row) - 1)
        scheduler = np.maximum(scheduler, 0)
        residual = bellman_residual(arrays, q, value)
        rounds = 0
        words.append(_storm_words("V", storm_value, arrays))
    else:
        value, q, scheduler, residual, rounds = value_by_iteration(arrays, goal)
        words.append(_iteration_words("V", rounds, residual, storm_value))
    danger = danger_policy = None
    rounds_danger = 0
    if unsafe is not None:
        report("danger", states=arrays.size)
        if usable(storm_danger, arrays) and storm_danger is not None:
            danger = midpoint(storm_danger)
            danger[unsafe] = 1.0
            words.append(_storm_words("D", storm_danger, arrays))
        else:
            danger, danger_policy, residual_d, rounds_danger = danger_by_iteration(
                arrays, unsafe, scheduler
            )
            residual = max(residual, residual_d)
            words.append(_iteration_words("D", rounds_danger, residual_d, storm_danger))
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
    )


def _storm_words(name: str, bounds: SoundBounds, arrays: ChoiceArrays) -> str:
    width = float(np.max(bounds.upper - bounds.lower, initial=0.0))
    error = width / 2 + storm_round_off(arrays, bounds.iterations)
    scheduler = ", Storm's scheduler" if name == "V" else ""
    return (
        f"{name}: Storm's interval iteration to {SOUND_PRECISION:g}, the midpoint of its sound"
        f" bounds (error ≤ {error:.1e}){scheduler}"
    )


def _iteration_words(name: str, rounds: int, residual: float, bounds: SoundBounds | None) -> str:
    why = (
        "Storm gave no bounds"
        if bounds is None
        else "Storm's interval iteration stopped unconverged"
        if not bounds.converged
        else "Storm's bounds too wide once widened by their round-off"
    )
    return (
        f"{name}: policy iteration from {START} ({why}): {rounds} sparse direct solves,"
        f" Bellman residual {residual:.1e}"
    )

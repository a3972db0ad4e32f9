"""The scale of a property's values: what normalises δ and satisfy's tolerance (method.md §14).

The paper's δ forms 1 − gap assume values in [0, 1], "and for expected-reward properties the
gaps are normalized by the value range so that δ ∈ [0, 1]". Here that range is R = the largest
minus the smallest *finite* V over the reachable states (an infinite expected reward has no
place on a scale; a gap to it counts as the whole range). A probability property keeps R = 1,
so every δ and grade of a probability is the paper's, unchanged.

* ``normalised_gap``: a difference of V or Q as a share of R, at most 1.
* ``position``: V on the scale [0, 1] (a probability is its own position).
* ``merit``: that position in the property's direction (1: the best end; lower is better for a
  minimum), which compares values of two properties (a flaw's belief and the truth).
* ``failure_closeness``: how close a state looks to a dead end, in [0, 1] (subset_dead_end's
  δ): 1 − V for Pmax, V for Pmin, V / the largest finite V for Rmin (∞: 1).
* ``hedge_point``: the constant a hedging answerer gives a numeric question, the mean of the
  finite values outside the target (satisfy's band is centred on it, so a constant answer of
  the mean passes no prioritised case; ``hedge_backend`` answers it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from explaincheck.core.oracle.property import MAX, REWARD
from explaincheck.core.oracle.types import OracleResult, StateFacts


@dataclass(frozen=True)
class Scale:
    """The finite values of one oracle's property: lowest, highest, mean outside the target."""

    low: float
    high: float
    mean: float  # mean of the finite values of the non-target states
    reward: bool  # an expected reward (a probability has the fixed scale [0, 1])
    infinite: bool = False  # some state's value is infinite (never reaches the target for sure)

    @property
    def width(self) -> float:
        """R: the range gaps are divided by (1 for a probability; never 0)."""
        if not self.reward:
            return 1.0
        return self.high - self.low if self.high > self.low else 1.0


PROBABILITY_SCALE = Scale(0.0, 1.0, 0.5, False)
_CACHE: list[tuple[Sequence[StateFacts], Scale]] = []  # the last few, keyed by identity
_CACHED = 4


def scale_of(oracle: OracleResult) -> Scale:
    """The scale of ``oracle``'s values (a fixed [0, 1] for a probability property)."""
    if oracle.prop.kind != REWARD:
        return PROBABILITY_SCALE
    states = oracle.states
    for cached, found in _CACHE:
        if cached is states:
            return found
    found = _measure(states)
    _CACHE.append((states, found))
    del _CACHE[:-_CACHED]
    return found


def _measure(states: Sequence[StateFacts]) -> Scale:
    column = getattr(states, "value", None)  # a columnar result's V, without making facts
    if isinstance(column, np.ndarray):
        goal: np.ndarray = np.asarray(cast(Any, states).goal).astype(bool)
        values, outside = column, column[np.logical_not(goal)]
    else:
        values = np.array([s.value for s in states], dtype=float)
        outside = np.array([s.value for s in states if not s.is_goal], dtype=float)
    finite = values[np.isfinite(values)]
    if not len(finite):
        return Scale(0.0, 0.0, 0.0, True, bool(len(values)))
    inner = outside[np.isfinite(outside)]
    mean = float(inner.mean()) if len(inner) else float(finite.mean())
    infinite = len(finite) < len(values)
    return Scale(float(finite.min()), float(finite.max()), mean, True, infinite)


def normalised_gap(gap: float, oracle: OracleResult) -> float:
    """``gap`` (a difference of V or Q) as a share of the value range, in [0, 1]."""
    if math.isnan(gap):
        return 0.0
    if math.isinf(gap):
        return 1.0
    return min(abs(gap) / scale_of(oracle).width, 1.0)


def position(value: float, oracle: OracleResult) -> float:
    """Where ``value`` lies on the scale of ``oracle``'s values, in [0, 1] (∞: 1)."""
    scale = scale_of(oracle)
    if not scale.reward:
        return value
    if math.isinf(value):
        return 1.0
    return min(max((value - scale.low) / scale.width, 0.0), 1.0)


def merit(value: float, oracle: OracleResult) -> float:
    """How good ``value`` is under ``oracle``'s property, in [0, 1] (1: the best end of its
    scale): its ``position`` read in the property's direction (lower is better for a minimum;
    an infinite expected reward is the worst end of Rmin and the best of Rmax)."""
    place = position(value, oracle)
    return place if oracle.prop.direction == MAX else 1.0 - place


def failure_closeness(state: StateFacts, oracle: OracleResult) -> float:
    """How close ``state`` looks to a dead end, in [0, 1] (1: it is one)."""
    prop = oracle.prop
    if prop.kind != REWARD:
        return 1.0 - state.value if prop.direction == MAX else state.value
    if math.isinf(state.value):
        return 1.0
    high = scale_of(oracle).high
    return state.value / high if high > 0 else 0.0


def hedge_point(oracle: OracleResult) -> float:
    """The constant a hedge answers to a numeric question: ½ for a probability, the mean of
    the finite values outside the target for an expected reward."""
    return scale_of(oracle).mean

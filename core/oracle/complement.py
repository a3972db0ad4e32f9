"""D = 1 − V where the model's graph says so, instead of a second check by Storm (issue 48: every
fact computed once).

D(s) = Pmin [F unsafe] and V(s) = Pmax [F goal]. When every run, under every policy, reaches a
goal or an unsafe state with probability 1, and from there never the other kind, then for every
policy P(F goal) + P(F unsafe) = 1, so the least chance of an unsafe state is one minus the
greatest chance of the goal, state by state: D = 1 − V exactly. Four graph facts make it so
(``ends_in_goal_or_unsafe``):

(a) no state is both a goal and unsafe;
(b) no goal state has a path to an unsafe one, and (c) no unsafe state to a goal one;
(d) no end component lies outside the goal and unsafe states (a set of states some policy can
    keep a run in forever, with probability 1): by the end-component theorem (de Alfaro 1997;
    Baier & Katoen, Principles of Model Checking, Thm. 10.120) a run then leaves every other
    state for good, so it reaches the goal or an unsafe state with probability 1.

Models with a move, day or battery limit are like this (``taxonomy/safer.danger_is_complement``
finds the same from the values); there Storm's check of D cost as much as its check of V (1.4 s
of the 10^6-state grid's 7 s). The bounds of D are those of V turned around, each one float
subtraction wider (``complement_bounds``); the certificate widens them as it widens Storm's.

Only the matrix's pattern is read (its probabilities are not loaded yet): Storm's builder keeps
no zero-probability entry (``tests/core/oracle/test_complement.py`` pins that), so an entry is
a transition.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from explaincheck.core.oracle.arrays import ChoiceArrays, reaching
from explaincheck.core.oracle.end_components import maximal_end_components
from explaincheck.core.oracle.storm.checking import SoundBounds

COMPLEMENT = "1 − V"  # ``SoundBounds.engine`` of bounds that are V's turned around


def ends_in_goal_or_unsafe(
    arrays: ChoiceArrays, goal: np.ndarray, unsafe: np.ndarray, acyclic: bool
) -> bool:
    """Whether (a) to (d) of the module's docstring hold, so D = 1 − V on every state.
    ``acyclic``: the model has no cycle but self-loops (``graph_analysis.acyclic_depth``), so its
    only possible end components are states with a choice that only loops back."""
    if (goal & unsafe).any():
        return False
    looping = _looping_rows(arrays)
    for source, other in ((goal, unsafe), (unsafe, goal)):
        if (
            not _absorbing(arrays, source, looping)
            and (reaching(arrays.state_graph, other) & source).any()
        ):
            return False
    outside = ~(goal | unsafe)
    if acyclic:
        return not outside[arrays.state_of_row[looping]].any()
    return maximal_end_components(arrays, outside).count == 0


def complement_bounds(value: SoundBounds) -> SoundBounds:
    """D's bounds from V's: [1 − V's upper, 1 − V's lower], one rounding step more (the
    subtraction rounds once: ``certificate.storm_round_off`` counts steps)."""
    return replace(
        value,
        lower=1.0 - value.upper,
        upper=1.0 - value.lower,
        iterations=value.iterations + 1,
        scheduler=None,
        engine=COMPLEMENT,
    )


def _looping_rows(arrays: ChoiceArrays) -> np.ndarray:
    """Bool per choice row: its only successor is its own state (Storm's rows list each
    successor once, so such a row has one entry)."""
    indptr = arrays.rows.indptr
    single = np.diff(indptr) == 1
    first = np.minimum(indptr[:-1], max(len(arrays.rows.indices) - 1, 0))
    return single & (arrays.rows.indices[first] == arrays.state_of_row)


def _absorbing(arrays: ChoiceArrays, states: np.ndarray, looping: np.ndarray) -> bool:
    """Whether every choice of every state in ``states`` only loops back."""
    return bool(looping[states[arrays.state_of_row]].all())

"""What each state's choices are, as columns over the choice rows: A* and A° (the labelled choices
tied for the largest and the smallest Q) and the do-nothing choices, every state at once.

A per-state fact of this kind is one function here and one column in ``ColumnarStates``: the
``choices`` phase of ``compute.py`` computes them, the child hands them on with the other columns,
and ``oracle --json`` (``contract_text``) prints them without deriving them again. They agree with
``columnar.group_actions`` (pinned by ``tests/core/oracle/test_choice_columns.py``): actions sorted
by decreasing Q, consecutive ones within the tie tolerance in one group (so a chain of near ties
is one group), A* the first group and A° the last.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from explaincheck.core.oracle.arrays import ChoiceArrays


@dataclass(frozen=True)
class ChoiceColumns:
    """Per choice row: among A* (``best``), among A° (``worst``), a do-nothing choice."""

    best: np.ndarray
    worst: np.ndarray
    do_nothing: np.ndarray


def choice_columns(
    arrays: ChoiceArrays,
    action_code: np.ndarray,
    q: np.ndarray,
    tolerance: float,
    exact_q: Sequence[Fraction] | None = None,
) -> ChoiceColumns:
    """A*, A° and do-nothing rows of every state; ``exact_q`` (the exact method's Q per row)
    decides ties exactly where given, ``tolerance`` otherwise."""
    if exact_q is not None:
        best, worst = _exact_groups(arrays.first_row, action_code, exact_q)
    else:
        best, worst = tie_groups(arrays.first_row, action_code, q, tolerance)
    return ChoiceColumns(best, worst, do_nothing_rows(arrays, action_code))


def tie_groups(
    first_row: np.ndarray, action_code: np.ndarray, q: np.ndarray, tolerance: float
) -> tuple[np.ndarray, np.ndarray]:
    """(best, worst) per row for float Q: the labelled rows of each state sorted by decreasing
    Q (model order among equal ones), a new group wherever two neighbours differ by more than
    ``tolerance``; best = the state's first group, worst = its last. States with one or two
    labelled choices (most of them) are decided by one comparison, the others sorted."""
    rows = len(action_code)
    best = np.zeros(rows, dtype=bool)
    worst = np.zeros(rows, dtype=bool)
    labelled = np.flatnonzero(action_code >= 0)
    if not len(labelled):
        return best, worst
    state = np.repeat(np.arange(len(first_row) - 1), np.diff(first_row))[labelled]
    count = np.bincount(state, minlength=len(first_row) - 1)[state]
    one = labelled[count == 1]
    best[one] = worst[one] = True
    pair = count == 2
    first, second = labelled[pair][0::2], labelled[pair][1::2]  # in row order, per state
    with np.errstate(invalid="ignore"):  # two infinite Q (an expected reward): NaN, equal
        gap = q[first] - q[second]
    tied = (q[first] == q[second]) | (np.abs(gap) <= tolerance)
    best[first] = tied | (gap > 0)
    best[second] = tied | (gap < 0)
    worst[first] = tied | (gap < 0)
    worst[second] = tied | (gap > 0)
    many = count > 2
    if many.any():
        _sorted_groups(labelled[many], state[many], q, tolerance, best, worst)
    return best, worst


def _sorted_groups(
    labelled: np.ndarray,
    state: np.ndarray,
    q: np.ndarray,
    tolerance: float,
    best: np.ndarray,
    worst: np.ndarray,
) -> None:
    """``tie_groups`` for states of three or more labelled rows, by sorting them."""
    order = np.lexsort((labelled, -q[labelled], state))  # by state, then Q down, then row
    rows_sorted, state_sorted, q_sorted = labelled[order], state[order], q[labelled][order]
    starts = np.ones(len(order), dtype=bool)  # a state's first labelled row in this order
    starts[1:] = state_sorted[1:] != state_sorted[:-1]
    split = starts.copy()
    split[1:] |= (q_sorted[:-1] - q_sorted[1:]) > tolerance
    group = np.cumsum(split)
    ends = np.ones(len(order), dtype=bool)  # a state's last labelled row in this order
    ends[:-1] = starts[1:]
    first_group = group[np.flatnonzero(starts)]
    last_group = group[np.flatnonzero(ends)]
    per_state = np.cumsum(starts) - 1  # index of the row's state among those with rows
    best[rows_sorted] = group == first_group[per_state]
    worst[rows_sorted] = group == last_group[per_state]


def _exact_groups(
    first_row: np.ndarray, action_code: np.ndarray, exact_q: Sequence[Fraction]
) -> tuple[np.ndarray, np.ndarray]:
    """(best, worst) per row where ties are equal fractions (models small enough for them)."""
    rows = len(action_code)
    best = np.zeros(rows, dtype=bool)
    worst = np.zeros(rows, dtype=bool)
    codes = action_code.tolist()
    bounds = first_row.tolist()
    for low, high in itertools.pairwise(bounds):
        labelled = [r for r in range(low, high) if codes[r] >= 0]
        if labelled:
            top = max(exact_q[r] for r in labelled)
            bottom = min(exact_q[r] for r in labelled)
            for r in labelled:
                best[r] = exact_q[r] == top
                worst[r] = exact_q[r] == bottom
    return best, worst


def do_nothing_rows(arrays: ChoiceArrays, action_code: np.ndarray) -> np.ndarray:
    """Per row, whether it is a labelled choice whose every entry leads back to its own state
    (``StateFacts.do_nothing``)."""
    rows = arrays.rows
    entries = np.diff(rows.indptr)
    source = np.repeat(arrays.state_of_row, entries)
    elsewhere = (rows.indices != source).astype(np.int64)
    leaving = np.zeros(len(action_code), dtype=np.int64)
    filled = entries > 0
    if filled.any():
        leaving[filled] = np.add.reduceat(elsewhere, rows.indptr[:-1][filled])
    return (action_code >= 0) & filled & (leaving == 0)

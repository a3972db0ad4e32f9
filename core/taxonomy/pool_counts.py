"""How many states each category's pool holds: what applicability asks, without making facts.

``registry.applicability`` asks every category whether it has a candidate. Through
``StateFacts`` that makes every state's facts: about 5 s at 10^5 states, while the Campaign tab
waits. A large (verified, columnar) oracle answers from its arrays instead; a small one counts
the pools of ``sampling``, so both paths answer the same question, which the tests check on the
built-in environments and on a columnar gridworld.

The counts are public for categories of plugin packages too: ``moves_to_goal`` is the graph
count (fewest moves to the goal) a category whose truth is a distance decides applicability by.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from explaincheck.core.oracle.columnar import ColumnarStates
from explaincheck.core.oracle.property_values import failing_value
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.case_rules import offered_order
from explaincheck.core.taxonomy.sampling import (
    bottleneck_pool,
    keys_tied,
    non_goal,
    preference_pool,
    quantity_key,
)


def _columns(oracle: OracleResult) -> ColumnarStates | None:
    states = oracle.states
    return states if isinstance(states, ColumnarStates) else None


def _state_of_row(table: ColumnarStates) -> np.ndarray:
    return np.repeat(np.arange(len(table)), np.diff(table.first_row))


def _labelled_actions(table: ColumnarStates) -> np.ndarray:
    """Per state, how many of its actions carry a name (``StateFacts.q`` keeps only those)."""
    labelled = _state_of_row(table)[table.action_code >= 0]
    return np.bincount(labelled, minlength=len(table))


def non_goal_count(oracle: OracleResult) -> int:
    table = _columns(oracle)
    if table is None:
        return len(non_goal(oracle))
    return int(np.count_nonzero(~table.goal))


def decided_count(oracle: OracleResult, keep_do_nothing: bool = False) -> int:
    """States of the preference pool whose offered actions (do-nothing ones left out unless
    kept) have two values that are not tied (``case_rules.offered_order`` has two groups or
    more: sorted, two neighbours differ by more than the tie tolerance): the pool of best,
    worst and ranking."""
    table = _columns(oracle)
    if table is None:
        return sum(
            1 for s in preference_pool(oracle) if len(offered_order(s, keep_do_nothing)) >= 2
        )
    size = len(table)
    offered = table.action_code >= 0
    if not keep_do_nothing:
        offered &= ~table.do_nothing_rows
    rows = np.flatnonzero(offered)
    state = _state_of_row(table)[rows]
    q = table.q[rows]
    order = np.lexsort((q, state))
    state, q = state[order], q[order]
    apart = (state[1:] == state[:-1]) & (q[1:] - q[:-1] > table.tie_tolerance)
    split = np.zeros(size, dtype=bool)
    split[state[1:][apart]] = True
    return int(np.count_nonzero(split & ~table.goal & (_labelled_actions(table) >= 2)))


ranking_count = decided_count  # the name the ranking pool had before best and worst shared it


def bottleneck_counts(oracle: OracleResult) -> tuple[int, int]:
    """(bottlenecks, other states) among the states that are neither goal nor initial."""
    table = _columns(oracle)
    if table is None:
        return _split([s.bottleneck for s in bottleneck_pool(oracle)])
    candidates = ~table.goal
    candidates[table.initial] = False
    return _split(table.bottleneck[candidates])


def dead_end_counts(oracle: OracleResult) -> tuple[int, int]:
    """(dead ends, other states) outside the goal: V at the property's failing value
    (``property_values.failing_value``: 0 for Pmax, 1 for Pmin, ∞ for Rmin)."""
    table = _columns(oracle)
    if table is None:
        return _split([s.dead_end for s in non_goal(oracle)])
    failing = failing_value(oracle.prop)
    if failing is None:
        return 0, int(np.count_nonzero(~table.goal))
    return _split(table.value[~table.goal] == failing)


def _split(marked: Sequence[bool] | np.ndarray) -> tuple[int, int]:
    """(how many of a pool's flags are set, how many are not)."""
    hits = int(np.count_nonzero(marked))
    return hits, len(marked) - hits


def spread_is_tied(oracle: OracleResult, quantity: str) -> bool:
    """Whether V ("value") or D ("danger") takes one value, up to ties, on every state outside
    the goal (there must be at least one)."""
    table = _columns(oracle)
    if table is None:
        key_of = quantity_key(oracle, quantity)
        keys = [key_of(s) for s in non_goal(oracle)]
        return keys_tied(oracle)(min(keys), max(keys))
    column = table.value if quantity == "value" else table.danger
    assert column is not None, "danger asked of an oracle without it"
    keys = column[~table.goal]
    return bool(abs(float(keys.max()) - float(keys.min())) <= oracle.tie_tolerance)


def danger_is_one_minus_value(oracle: OracleResult) -> bool | None:
    """On a columnar oracle, whether D = 1 − V within the tie tolerance (at least 1e-12) on every
    state outside the goal; None for the others (``safer.danger_is_complement`` reads facts)."""
    table = _columns(oracle)
    if table is None or table.danger is None:
        return None
    outside = ~table.goal
    gap = np.abs(table.danger[outside] - (1.0 - table.value[outside]))
    return bool(np.all(gap <= max(oracle.tie_tolerance, 1e-12)))


def goal_flags(oracle: OracleResult) -> np.ndarray:
    """Per state, whether it is a goal state (a boolean array), without making facts."""
    table = _columns(oracle)
    if table is None:
        return np.array([s.is_goal for s in oracle.states], dtype=bool)
    return np.asarray(table.goal, dtype=bool)


# the last states sequence ``moves_to_goal`` was asked about, and its answer: a category asks it
# once per state (``is_positive``) while building candidates; holding the sequence keeps its id
_moves_asked: list[tuple[Sequence, np.ndarray]] = []


def moves_to_goal(oracle: OracleResult) -> np.ndarray:
    """Per state, the fewest moves to a goal state along transitions of positive probability,
    whatever actions are taken: 0 on a goal state, -1 where no sequence of moves gets there.
    Read from a large oracle's columns (no facts made) or from a small one's successors; one
    breadth-first search in C (from a virtual node next to every goal state)."""
    states = oracle.states
    if _moves_asked and _moves_asked[0][0] is states:
        return _moves_asked[0][1]
    sources, targets = _edges(oracle)
    goal = goal_flags(oracle)
    size = len(goal)
    # reversed edges (successor -> state) plus a node ``size`` with an edge to every goal state
    rows = np.concatenate([targets, np.full(int(goal.sum()), size, dtype=np.int64)])
    cols = np.concatenate([sources, np.flatnonzero(goal).astype(np.int64)])
    graph = csr_matrix(
        (np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(size + 1, size + 1)
    )
    found = dijkstra(graph, directed=True, indices=size, unweighted=True)[:size]
    moves = np.where(np.isfinite(found), found - 1, -1).astype(np.int64)
    _moves_asked[:] = [(states, moves)]
    return moves


def _edges(oracle: OracleResult) -> tuple[np.ndarray, np.ndarray]:
    """(state, successor) of every transition of positive probability."""
    table = _columns(oracle)
    if table is None:
        pairs = [
            (s.id, t)
            for s in oracle.states
            for outcomes in s.successors.values()
            for t, p in outcomes.items()
            if p > 0
        ]
        array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        return array[:, 0], array[:, 1]
    row_of_entry = np.repeat(np.arange(len(table.row_offsets) - 1), np.diff(table.row_offsets))
    state_of_entry = _state_of_row(table)[row_of_entry]
    kept = table.probabilities > 0
    return state_of_entry[kept].astype(np.int64), table.columns[kept].astype(np.int64)

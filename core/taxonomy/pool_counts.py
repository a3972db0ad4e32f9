"""How many states each category's pool holds: what applicability asks, without making facts.

``registry.applicability`` asks every category whether it has a candidate. Through
``StateFacts`` that makes every state's facts: about 5 s at 10^5 states, while the Campaign tab
waits. A large (verified, columnar) oracle answers from its arrays instead; a small one counts
the pools of ``sampling``, so both paths answer the same question, which the tests check on the
built-in environments and on a columnar gridworld.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

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

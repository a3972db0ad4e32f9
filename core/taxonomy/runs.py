"""Runs through an oracle's state graph that illustrate an answer (shown on the graph when a case
is taught): a shortest run through or around a state, and where the optimal policy goes.

Kept apart from the categories and from ``teaching`` so that both can use them without a cycle.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explaincheck.core.oracle.types import OracleResult, StateFacts


def _successors(state: StateFacts) -> set[int]:
    return {t for succ in state.successors.values() for t, p in succ.items() if p > 0}


def shortest_path(
    oracle: OracleResult, start: int, targets: set[int], avoid: int | None = None
) -> list[int]:
    """A shortest path start -> any target (breadth-first), not entering ``avoid``."""
    if start == avoid:
        return []
    parent: dict[int, int | None] = {start: None}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        if current in targets:
            path = []
            node: int | None = current
            while node is not None:
                path.append(node)
                node = parent[node]
            return path[::-1]
        for nxt in sorted(_successors(oracle.states[current])):
            if nxt not in parent and nxt != avoid:
                parent[nxt] = current
                queue.append(nxt)
    return []


def _goals(oracle: OracleResult) -> set[int]:
    return {s.id for s in oracle.states if s.is_goal}


def run_through(oracle: OracleResult, state_id: int) -> list[int]:
    """A shortest run initial -> ``state_id`` -> goal, or [] when there is none."""
    first = shortest_path(oracle, oracle.model.initial, {state_id})
    second = shortest_path(oracle, state_id, _goals(oracle))
    return first + second[1:] if first and second else []


def run_avoiding(oracle: OracleResult, state_id: int) -> list[int]:
    """A shortest run initial -> goal that never enters ``state_id``, or []."""
    return shortest_path(oracle, oracle.model.initial, _goals(oracle), avoid=state_id)


OPTIMAL_RUN_NOTE = (
    "On the graph: a typical run from here under the optimal actions. Each step goes to the "
    "most likely next state; among equally likely ones, to the one with the highest V (a real "
    "walk may slip elsewhere)."
)


def optimal_run(oracle: OracleResult, state_id: int, limit: int = 60) -> list[int]:
    """A typical run under the optimal action: the most likely next state, repeated (to show
    'where it goes'). Equally likely successors are told apart by their value, then by id, so
    a slip that is as likely as the intended move does not draw the run into a hole."""
    path = [state_id]
    current = oracle.states[state_id]
    while current.optimal_action and not current.is_goal and len(path) < limit:
        successors = current.successors.get(current.optimal_action, {})
        moves = {t: p for t, p in successors.items() if t not in path}
        if not moves:
            break
        nxt = max(moves, key=lambda t: (moves[t], oracle.states[t].value, -t))
        path.append(nxt)
        current = oracle.states[nxt]
    return path if len(path) > 1 else []

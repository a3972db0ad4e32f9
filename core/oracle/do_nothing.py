"""Do-nothing actions of a whole model: which states have them and which action names they are.

A do-nothing action (``StateFacts.do_nothing``: every outcome is the state itself) has
Q(s, a) = V(s), so it is always among the best; a model with a ``quit`` action would make
"quit" a right best action everywhere. The oracle's summary, ``oracle --json``, ``envs`` and the
State inspector show them; preference questions leave them out by default (docs/method.md §4).
A large (columnar) oracle answers from its arrays, without making any state's facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from explaincheck.core.oracle.columnar import ColumnarStates
    from explaincheck.core.oracle.types import OracleResult


@dataclass(frozen=True)
class DoNothing:
    """How many states have a do-nothing action, and the names of those actions (model order)."""

    states: int
    actions: tuple[str, ...]

    def words(self) -> str:
        """One line for a summary: "none" or "12 states (quit, west)"."""
        if not self.states:
            return "none"
        noun = "state" if self.states == 1 else "states"
        return f"{self.states:,} {noun} ({', '.join(self.actions)})"


def do_nothing_summary(result: OracleResult) -> DoNothing:
    """The do-nothing actions of ``result`` (outside the goal, where questions are asked)."""
    if result.columnar:  # numpy only here: a small result is read without it
        import numpy as np

        table = cast("ColumnarStates", result.states)
        rows = table.do_nothing_rows
        row_state = np.repeat(np.arange(len(table)), np.diff(table.first_row))
        outside = ~table.goal[row_state]
        chosen = rows & outside
        codes = sorted(set(table.action_code[chosen].tolist()))
        names = tuple(table.action_names[c] for c in codes)
        return DoNothing(len(np.unique(row_state[chosen])), names)
    found: dict[str, None] = {}
    count = 0
    for state in result.states:
        if state.is_goal:
            continue
        actions = state.do_nothing
        if actions:
            count += 1
            found.update(dict.fromkeys(actions))
    order = {name: i for i, name in enumerate(result.model.actions)}
    return DoNothing(count, tuple(sorted(found, key=lambda a: order.get(a, len(order)))))

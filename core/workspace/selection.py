"""The one selected state of the open model, which every view follows (issue 50, point 8).

Why one object: the main graph, the Workbench's graph and pages, the Teach tab and the state
inspector each used to keep a state of their own, so a click in one view moved some of the
others and not the rest, and a live rebuild sent them back to state 0. Here the state is held
once, beside ``ModelWorkspace`` (which owns it as ``selection``); a view that is clicked calls
``select``, every view listens to ``changed``. A new oracle of the same model (a rebuild with
other constants, the editor's live check, a policy attached) keeps the selected state where it
still exists, matched by its valuation (Storm's state ids follow exploration order, which an
edit can change); where it does not, the initial state is selected. A newly opened model starts
at its initial state.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.events import Event

# Matching a valuation reads every state's facts: beyond this many states (a columnar model
# makes each state's facts on first access) only the same id is tried.
MATCH_LIMIT = 50_000

Valuation = tuple[tuple[str, int | bool | float], ...]


def valuation_key(oracle: OracleResult, state: int) -> Valuation:
    """A state's valuation as a comparable key, in the model's variable order."""
    return tuple(oracle.state(state).valuation.items())


def matching_state(oracle: OracleResult, key: Valuation, hint: int | None = None) -> int | None:
    """The state of ``oracle`` with valuation ``key`` (None: not reachable there). ``hint``,
    the id it had before, is tried first: an edit that keeps the state space keeps the ids."""
    size = len(oracle.states)
    if hint is not None and 0 <= hint < size and valuation_key(oracle, hint) == key:
        return hint
    if size > MATCH_LIMIT:
        return None
    wanted = dict(key)
    for state in range(size):
        if oracle.state(state).valuation == wanted:
            return state
    return None


class StateSelection:
    """Which state is selected (``state``, None before a model is open) and ``changed``."""

    def __init__(self) -> None:
        self.oracle: OracleResult | None = None
        self.state: int | None = None
        self._key: Valuation | None = None  # the selected state's valuation, to find it again
        self.changed = Event("changed")  # (int | None): the state every view goes to

    def select(self, state: int | None) -> bool:
        """Select ``state`` of the current oracle (a state it does not have is ignored);
        whether the selection changed (``changed`` was emitted)."""
        oracle = self.oracle
        if state is not None and (oracle is None or not 0 <= state < len(oracle.states)):
            return False
        if state == self.state:
            return False
        self.state = state
        self._key = None if state is None or oracle is None else valuation_key(oracle, state)
        self.changed.emit(state)
        return True

    def forget(self) -> None:
        """A new model opens: its first oracle starts at the initial state."""
        self._key = None

    def rebase(self, oracle: OracleResult) -> int:
        """Take ``oracle`` as the current one without telling anyone yet: the selected state
        where its valuation is reachable in ``oracle``, else the initial state; ``announce``
        then tells the views, once they hold ``oracle`` too."""
        kept = None
        if self._key is not None and oracle is not self.oracle:
            kept = matching_state(oracle, self._key, self.state)
        elif self._key is not None:
            kept = self.state
        self.oracle = oracle
        self.state = oracle.model.initial if kept is None else kept
        self._key = valuation_key(oracle, self.state)
        return self.state

    def announce(self) -> None:
        """Tell every view the selected state (after a new oracle was handed to them)."""
        self.changed.emit(self.state)

    def clear(self) -> None:
        """No model is open (or it failed before its first oracle): nothing is selected."""
        self.oracle, self.state, self._key = None, None, None

"""Every state's choices with exact probabilities, read once per model from Storm.

The oracle's ``StateFacts.successors`` hold floats (1/3 becomes 0.333…); the Bellman view and
policy iteration want the fractions the Rational engine used, so they ask Storm for them in an
isolated child (about 0.2 s for a small model) and keep the answer per request and file content
(an edit rebuilt live writes the same file anew: its transitions are not the old ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from explaincheck.core.oracle.cache import request_hash
from explaincheck.core.oracle.isolated_call import call_isolated
from explaincheck.core.oracle.storm.teaching import exact_choices
from explaincheck.core.oracle.types import OracleRequest

Number = Fraction | float


@dataclass(frozen=True)
class Transitions:
    """``choices[s]`` = [(action or None, {successor: probability}), ...] in model order."""

    exact: bool  # probabilities are Fractions (the Rational engine applies)
    choices: list[list[tuple[str | None, dict[int, Number]]]]

    def labelled(self, state: int) -> list[tuple[str, dict[int, Number]]]:
        """The state's labelled choices (the ones Q, A* and A° are about)."""
        return [(a, p) for a, p in self.choices[state] if a is not None]

    def probability(self, state: int, action: str | None, successor: int) -> Number:
        for name, probabilities in self.choices[state]:
            if name == action:
                return probabilities.get(successor, 0)
        return 0


_memory: dict[str, Transitions] = {}


def load_transitions(request: OracleRequest) -> Transitions:
    """The model's transitions (from Storm in a child, kept in memory per request and the
    file's content, as the oracle's cache keys them)."""
    try:
        key = request_hash(request)
    except OSError:  # no file to read: Storm's child says so in one line
        key = ""
    if not key or key not in _memory:
        data = call_isolated(exact_choices, request)
        exact = bool(data["exact"])

        def number(text: str) -> Number:
            return Fraction(text) if exact else float(text)

        choices = [
            [(action, {int(t): number(p) for t, p in pairs}) for action, pairs in state]
            for state in data["states"]
        ]
        found = Transitions(exact, choices)
        if not key:
            return found
        _memory[key] = found
    return _memory[key]

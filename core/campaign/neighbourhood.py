"""A question's neighbourhood: the states its answer is computed from.

Why: every answer the oracle grades for a state question is a function of the values of the
question's states and of their successors (V(s) = max over a of Q(s, a) = Σ P(s, a, s') V(s');
best, worst, ranking, more promising and safer read the same numbers), so a split that keeps
these sets of held-out and training questions apart keeps any training record from stating a
value that a held-out answer is made of (docs/method.md, "Training sets and few-shot repair").
Absorbing states (every choice returns to the state: a goal reached, a hole fallen into) are
left out of the *successors*: their value is fixed by the task (1 at the goal, 0 elsewhere), the
same for every question, and nearly every state of a small model is one step from one of them.
A question's own states always count, absorbing or not.
"""

from __future__ import annotations

from collections.abc import Iterable

from explaincheck.core.oracle.types import OracleResult


def is_absorbing(oracle: OracleResult, state: int) -> bool:
    """Every choice of ``state`` leads back to it (or it has none)."""
    facts = oracle.state(state)
    return all(set(targets) <= {state} for targets in facts.successors.values())


def neighbourhood(oracle: OracleResult, states: Iterable[int]) -> tuple[int, ...]:
    """``states`` and every non-absorbing state one choice away from them, sorted."""
    own = set(states)
    found = set(own)
    absorbing: dict[int, bool] = {}
    for state in own:
        for targets in oracle.state(state).successors.values():
            for target in targets:
                if target not in absorbing:
                    absorbing[target] = is_absorbing(oracle, target)
                if not absorbing[target]:
                    found.add(target)
    return tuple(sorted(found))

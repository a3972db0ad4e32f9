"""Policy iteration for Pmax[F goal], step by step in exact fractions (a lesson for ≤ 50 states).

Each round evaluates the current policy exactly (states that cannot reach the goal under it get
0, the others solve (I − P_σ) V = b by Gaussian elimination over Fractions) and then switches a
state's action only where another action is strictly better, so the rounds end in an optimal
policy for maximal reachability. Start: every state's first labelled action, in model order.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workbench.transitions import Transitions

LESSON_STATES = 50
MAX_ROUNDS = 100


@dataclass(frozen=True)
class Round:
    number: int  # 1, 2, ...
    policy: dict[int, str]  # state -> action evaluated in this round
    values: tuple[Fraction, ...]  # V under that policy, by state id
    switched: dict[int, tuple[str, str]]  # state -> (old action, new action) after this round


def _successors(transitions: Transitions, state: int, action: str | None) -> dict[int, Fraction]:
    for name, probabilities in transitions.choices[state]:
        if name == action:
            return {t: Fraction(p) for t, p in probabilities.items()}
    first = transitions.choices[state][0][1] if transitions.choices[state] else {state: 1}
    return {t: Fraction(p) for t, p in first.items()}


def evaluate(
    transitions: Transitions, goal: list[bool], policy: dict[int, str]
) -> tuple[Fraction, ...]:
    """P[F goal] of every state under ``policy`` (unlabelled states take their first choice)."""
    n = len(transitions.choices)
    rows = [{} if goal[s] else _successors(transitions, s, policy.get(s)) for s in range(n)]
    reaches = set(s for s in range(n) if goal[s])
    changed = True
    while changed:  # backwards: who reaches the goal with positive probability
        changed = False
        for s in range(n):
            if s not in reaches and any(t in reaches and p > 0 for t, p in rows[s].items()):
                reaches.add(s)
                changed = True
    unknown = [s for s in range(n) if s in reaches and not goal[s]]
    position = {s: i for i, s in enumerate(unknown)}
    size = len(unknown)
    matrix = [[Fraction(0)] * (size + 1) for _ in range(size)]
    for i, s in enumerate(unknown):
        matrix[i][i] += 1
        for t, p in rows[s].items():
            if goal[t]:
                matrix[i][size] += p
            elif t in position:
                matrix[i][position[t]] -= p
    solution = _solve(matrix)
    values = [Fraction(1) if goal[s] else Fraction(0) for s in range(n)]
    for s, v in zip(unknown, solution, strict=True):
        values[s] = v
    return tuple(values)


def _solve(matrix: list[list[Fraction]]) -> list[Fraction]:
    """Gauss-Jordan elimination on an augmented matrix (non-singular by construction)."""
    size = len(matrix)
    for col in range(size):
        pivot = next(r for r in range(col, size) if matrix[r][col] != 0)
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        lead = matrix[col][col]
        matrix[col] = [x / lead for x in matrix[col]]
        for r in range(size):
            if r != col and matrix[r][col] != 0:
                factor = matrix[r][col]
                matrix[r] = [a - factor * b for a, b in zip(matrix[r], matrix[col], strict=True)]
    return [matrix[r][size] for r in range(size)]


def policy_iteration(oracle: OracleResult, transitions: Transitions) -> list[Round]:
    """The rounds of policy iteration until no state switches (the last round's policy is
    optimal and its values equal the oracle's V)."""
    n = len(transitions.choices)
    if n > LESSON_STATES:
        raise ExplaincheckError(
            f"policy iteration is a lesson for models of at most {LESSON_STATES} states "
            f"(this one has {n})"
        )
    if not transitions.exact:
        raise ExplaincheckError("policy iteration needs the exact transition probabilities")
    goal = [oracle.state(s).is_goal for s in range(n)]
    policy = {
        s: labelled[0][0] for s in range(n) if not goal[s] and (labelled := transitions.labelled(s))
    }
    rounds: list[Round] = []
    for number in range(1, MAX_ROUNDS + 1):
        values = evaluate(transitions, goal, policy)
        switched: dict[int, tuple[str, str]] = {}
        for s, current in policy.items():
            q = {
                a: sum((Fraction(p) * values[t] for t, p in probs.items()), Fraction(0))
                for a, probs in transitions.labelled(s)
            }
            best = max(q, key=lambda a: q[a])
            if q[best] > q[current]:
                switched[s] = (current, best)
        rounds.append(Round(number, dict(policy), values, switched))
        if not switched:
            return rounds
        for s, (_, new) in switched.items():
            policy[s] = new
    return rounds

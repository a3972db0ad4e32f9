"""Exact maximal reachability on a ``ModelStructure`` with Fraction probabilities, in Python.

Why: a flawed picture whose transitions are not the model's (``flaw:determinised`` keeps every
most likely outcome with equal weight) has no PRISM file for Storm to check, yet the pictures of
exact oracles must be exact too (their ties decide answers). Policy iteration: start from a
given policy (the float method's, ``values.verified_values``, so one or two rounds suffice),
evaluate it exactly by sparse Gauss–Jordan elimination over Fractions (states that cannot reach
the target under the policy are pinned to 0 by graph analysis first), switch a state's choice
only where another is strictly better, and stop when none is. A policy's value that no choice
improves is the optimum (the attained value is a Bellman fixed point).
"""

from __future__ import annotations

from fractions import Fraction

from explaincheck.core.oracle.storm.structure import ModelStructure

ZERO, ONE = Fraction(0), Fraction(1)


def max_reach(
    structure: ModelStructure, target: list[bool], policy: list[int]
) -> tuple[list[Fraction], list[int]]:
    """(Pmax [F target] per state, an optimal choice per state), exactly."""
    policy = list(policy)
    while True:
        value = evaluate(structure, target, policy)
        changed = False
        for state, choices in enumerate(structure.choices):
            if target[state] or not choices:
                continue
            q = [_expected(choice.probabilities, value) for choice in choices]
            best = max(range(len(q)), key=lambda i: (q[i], i == policy[state]))
            if q[best] > q[policy[state]]:
                policy[state], changed = best, True
        if not changed:
            return value, policy


def _expected(probabilities: dict, value: list[Fraction]) -> Fraction:
    return sum((Fraction(p) * value[t] for t, p in probabilities.items()), ZERO)


def evaluate(structure: ModelStructure, target: list[bool], policy: list[int]) -> list[Fraction]:
    """P [F target] of the Markov chain that ``policy`` induces, exactly."""
    size = structure.size
    chosen = [
        structure.choices[s][policy[s]].probabilities if structure.choices[s] else {s: 1}
        for s in range(size)
    ]
    reaches = _reaching(chosen, target)
    value = [ONE if target[s] else ZERO for s in range(size)]
    unknown = [s for s in range(size) if reaches[s] and not target[s]]
    rows: dict[int, dict[int, Fraction]] = {}
    rhs: dict[int, Fraction] = {}
    users: dict[int, set[int]] = {s: set() for s in unknown}
    for s in unknown:
        row: dict[int, Fraction] = {}
        constant = ZERO
        for t, p in chosen[s].items():
            if t in users:
                row[t] = row.get(t, ZERO) + Fraction(p)
            else:
                constant += Fraction(p) * value[t]
        rows[s], rhs[s] = row, constant
        for t in row:
            users[t].add(s)
    for s in unknown:  # x_s = rhs_s + Σ row_s[t] x_t; eliminate x_s from every other row
        row = rows[s]
        self_loop = row.pop(s, ZERO)
        users[s].discard(s)
        scale = 1 / (1 - self_loop)
        rhs[s] *= scale
        for t in row:
            row[t] *= scale
        for r in users[s]:
            other = rows[r]
            weight = other.pop(s)
            rhs[r] += weight * rhs[s]
            for t, c in row.items():
                other[t] = other.get(t, ZERO) + weight * c
                users[t].add(r)
        users[s] = set()  # x_s appears in no row any more; row_s keeps its later variables
    for s in unknown:  # Gauss–Jordan: every row is now a constant
        value[s] = rhs[s]
    return value


def _reaching(chosen: list[dict], target: list[bool]) -> list[bool]:
    """States from which the chain reaches a target state with positive probability."""
    predecessors: list[list[int]] = [[] for _ in chosen]
    for s, successors in enumerate(chosen):
        for t, p in successors.items():
            if p > 0:
                predecessors[t].append(s)
    reached = list(target)
    stack = [s for s, hit in enumerate(target) if hit]
    while stack:
        for pred in predecessors[stack.pop()]:
            if not reached[pred]:
                reached[pred] = True
                stack.append(pred)
    return reached

"""Graph-based (qualitative) facts that need no numbers: exactly who has value 0.

Used by the verified float method to pin V=0 and D=0 states exactly, as Storm's own prob0
precomputations do, so dead ends never depend on floating-point round-off.
"""

from __future__ import annotations

from collections import deque

from explaincheck.core.oracle.structure import ModelStructure


def predecessors(structure: ModelStructure) -> list[set[int]]:
    preds: list[set[int]] = [set() for _ in range(structure.size)]
    for state, state_choices in enumerate(structure.choices):
        for choice in state_choices:
            for successor, probability in choice.probabilities.items():
                if probability > 0:
                    preds[successor].add(state)
    return preds


def can_reach(structure: ModelStructure, targets: list[bool]) -> list[bool]:
    """States with a path to a target (backward search): exactly those with Pmax > 0."""
    preds = predecessors(structure)
    reached = list(targets)
    queue = deque(i for i, hit in enumerate(targets) if hit)
    while queue:
        state = queue.popleft()
        for pred in preds[state]:
            if not reached[pred]:
                reached[pred] = True
                queue.append(pred)
    return reached


def can_avoid_forever(structure: ModelStructure, bad: list[bool]) -> list[bool]:
    """States from which some policy never reaches ``bad``: exactly those with Pmin = 0.

    Greatest fixed point: start from all good states and drop a state once none of its choices
    keeps every successor inside the set.
    """
    inside = [not b for b in bad]
    preds = predecessors(structure)
    queue = deque(i for i, ok in enumerate(inside) if not ok)
    while queue:
        removed = queue.popleft()
        for pred in preds[removed]:
            if not inside[pred]:
                continue
            if not any(
                all(inside[s] for s, p in choice.probabilities.items() if p > 0)
                for choice in structure.choices[pred]
            ):
                inside[pred] = False
                queue.append(pred)
    return inside

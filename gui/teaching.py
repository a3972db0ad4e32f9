"""What the teaching view says about one case: the question, the oracle's answer and why.

Pure Python over core objects (no Qt), so the explanations can be tested on their own. Every
category is taught: single-state questions one state at a time, pair and subset questions with
all their states (A, B, … as the prompt names them) and the oracle's reasoning for each.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Any

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import PRIORITIZED, TestCase

TAUGHT = (
    "satisfy",
    "bottleneck",
    "best_action",
    "worst_action",
    "ranking",
    "subset_bottleneck",
    "subset_dead_end",
    "more_promising",
    "safer",
    "which_bottleneck",
    "factors",
)
MAX_CASES = 500  # cases offered per category (pairs and subsets can be very many)


@dataclass(frozen=True)
class Lesson:
    """One state under one category, ready to present step by step."""

    case: TestCase
    situation: str  # the state in words
    question: str  # the category's question
    prompt: str  # the full prompt an LLM gets
    answer: str  # the oracle's answer, in words
    why: list[str]  # the reasons, one line each
    path: list[int]  # a run to highlight (initial -> ... -> goal), may be empty


Case = tuple[tuple[int, ...], float]  # the case's states, and its δ


def stepping_order(oracle: OracleResult, category_id: str) -> list[Case]:
    """(states, δ) of every candidate of the category, most diagnostic (highest δ) first, at
    most ``MAX_CASES``."""
    from explaincheck.core.taxonomy.registry import category as by_id

    candidates = by_id(category_id).candidates(oracle)
    best: dict[tuple[int, ...], float] = {}
    for candidate in candidates:
        states = tuple(candidate.states)
        best[states] = max(best.get(states, 0.0), candidate.delta)
    return sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_CASES]


def lesson(
    oracle: OracleResult,
    environment: Environment,
    category_id: str,
    states: tuple[int, ...] | int,
    delta: float,
) -> Lesson:
    from explaincheck.core.taxonomy.prompts import render_prompt
    from explaincheck.core.taxonomy.registry import category as by_id

    states = (states,) if isinstance(states, int) else tuple(states)
    category = by_id(category_id)
    case = TestCase(category_id, states, delta, PRIORITIZED, 0)
    situation = "\n\n".join(
        f"{name}{_describe(environment, oracle.state(s))}" for name, s in named_states(states)
    )
    right = category.oracle_answer(case, oracle)
    if len(states) == 1:
        why, path = explain(oracle, category_id, oracle.state(states[0]))
    else:
        why, path = explain_many(oracle, category_id, states)
    return Lesson(
        case=case,
        situation=situation,
        question=category.question(case, oracle),
        prompt=render_prompt(case, oracle, environment).text,
        answer=answer_words(category_id, right, category.expected(case, oracle)),
        why=why,
        path=path,
    )


def named_states(states: tuple[int, ...]) -> list[tuple[str, int]]:
    """("State A (id 5): ", 5)… as the prompt names them; "State 5: " for a single state."""
    from explaincheck.core.taxonomy.kinds import letters

    if len(states) == 1:
        return [(f"State {states[0]}: ", states[0])]
    names = letters(len(states))
    return [(f"State {n} (id {s}): ", s) for n, s in zip(names, states, strict=True)]


def _describe(environment: Environment, state: StateFacts) -> str:
    try:
        return environment.describe(state).strip()
    except Exception as error:  # wording code must never break a lecture
        return f"state {state.id} (describing it failed: {error})"


def explain_many(
    oracle: OracleResult, category_id: str, states: tuple[int, ...]
) -> tuple[list[str], list[int]]:
    """For a pair or subset: the fact that decides the answer, for each state, then why the
    answer follows (and, for a bottleneck question, a run through the bottleneck)."""
    from explaincheck.core.taxonomy.kinds import letters

    facts = [oracle.state(s) for s in states]
    names = letters(len(states))
    lines = [
        f"{n} (state {f.id}): {state_fact(oracle, category_id, f)}"
        for n, f in zip(names, facts, strict=True)
    ]
    path: list[int] = []
    if category_id == "more_promising":
        best = max(facts, key=lambda f: f.value)
        lines.append(
            f"{names[facts.index(best)]} is more promising: the higher V, the likelier the goal "
            "under the best policy."
        )
        path = optimal_run(oracle, best.id)
    elif category_id == "safer":
        safest = min(facts, key=lambda f: f.danger if f.danger is not None else 1.0)
        lines.append(
            f"{names[facts.index(safest)]} is safer: the lower D, the less a careful policy "
            "risks the unsafe states."
        )
    elif category_id in ("which_bottleneck", "subset_bottleneck"):
        found = [f for f in facts if f.bottleneck]
        for f in found[:1]:
            path = run_through(oracle, f.id)
        if category_id == "which_bottleneck" and found:
            lines.append(
                f"{names[facts.index(found[0])]} is the bottleneck: every successful run passes "
                "through it (highlighted). A central decoy (high C_B) only looks like one."
            )
        elif found:
            lines.append("Yes: at least one of them is a bottleneck (a run through it is shown).")
        else:
            lines.append("No: none of them is a bottleneck; the goal is reachable around each.")
    elif category_id == "subset_dead_end":
        if any(f.dead_end for f in facts):
            lines.append("Yes: at least one of them is a dead end (V = 0).")
        else:
            lines.append("No: from each of them some policy still reaches the goal (V > 0).")
    return lines, path


def state_fact(oracle: OracleResult, category_id: str, f: StateFacts) -> str:
    """The oracle's value that matters for this category, for one state of a pair or subset."""
    value = f"V = Pmax[F goal] = {f.value:.4g}"
    if category_id == "safer":
        return f"D = Pmin[F unsafe] = {f.danger:.4g}" if f.danger is not None else "D unknown"
    if category_id in ("which_bottleneck", "subset_bottleneck"):
        kind = "a bottleneck" if f.bottleneck else "not a bottleneck"
        return f"{kind}; centrality C_B = {f.centrality:.3g}"
    if category_id == "subset_dead_end":
        return f"{value}: " + ("a dead end" if f.dead_end else "not a dead end")
    return value


def answer_words(category_id: str, right: Any, expected: dict[str, Any]) -> str:
    if category_id == "factors" and isinstance(right, dict):
        return f"{right.get('action')}, because of {', '.join(right.get('factors') or [])}"
    if category_id == "satisfy":
        return f"probability {float(right):.4g}"
    if category_id == "bottleneck":
        return "yes, it is a bottleneck" if right in (True, "yes") else "no, it is not a bottleneck"
    if category_id in ("best_action", "worst_action"):
        accepted = next(iter(expected.values()), [right])
        if isinstance(accepted, list) and len(accepted) > 1:
            return f"{right} (any of {', '.join(map(str, accepted))} is right)"
        return str(right)
    if category_id == "ranking":
        groups = next(iter(expected.values()), None)
        if isinstance(groups, list) and groups and isinstance(groups[0], list):
            return " > ".join(" = ".join(g) if len(g) > 1 else g[0] for g in groups)
        return " > ".join(map(str, right)) if isinstance(right, list) else str(right)
    if isinstance(right, str):
        return f"state {right}" if len(right) == 1 and right.isupper() else right
    return json.dumps(right)


def explain(oracle: OracleResult, category_id: str, s: StateFacts) -> tuple[list[str], list[int]]:
    """Reasons for the oracle's answer, and a run to show on the graph."""
    value = f"V(s) = Pmax[F goal] = {s.value:.4g}" + (
        f" (exactly {s.value_exact})" if s.value_exact and "/" in s.value_exact else ""
    )
    lines = [value]
    if s.q:
        ranked = sorted(s.q.items(), key=lambda kv: -kv[1])
        lines.append("Q(s, a): " + ", ".join(f"{a} {v:.4g}" for a, v in ranked))
        best, worst = ", ".join(s.best), ", ".join(s.worst)
        lines.append(f"A* = {{{best}}} (best)    A° = {{{worst}}} (worst)")
        if s.optimal_action:
            lines.append(f"The optimal scheduler chooses {s.optimal_action} here.")
    else:
        lines.append("No labelled action here (goal, trap or deadlock).")
    path: list[int] = []
    if category_id == "bottleneck":
        if s.bottleneck:
            path = run_through(oracle, s.id)
            lines.append(
                "Bottleneck: making this state absorbing makes the goal unreachable from the "
                "initial state, so every successful run passes through it."
            )
        else:
            path = run_avoiding(oracle, s.id)
            if s.is_goal or s.is_initial:
                lines.append("Not a bottleneck: the initial and goal states never count.")
            elif path:
                lines.append("Not a bottleneck: the highlighted run reaches the goal without it.")
            else:
                lines.append("Not a bottleneck: no run from the initial state reaches the goal.")
    elif s.dead_end:
        lines.append("Dead end: V(s) = 0, no policy can reach the goal from here.")
    else:
        path = optimal_run(oracle, s.id)
    return lines, path


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
    first = shortest_path(oracle, oracle.model.initial, {state_id})
    second = shortest_path(oracle, state_id, _goals(oracle))
    return first + second[1:] if first and second else []


def run_avoiding(oracle: OracleResult, state_id: int) -> list[int]:
    return shortest_path(oracle, oracle.model.initial, _goals(oracle), avoid=state_id)


def optimal_run(oracle: OracleResult, state_id: int, limit: int = 60) -> list[int]:
    """The most likely next state under the optimal action, repeated (to show 'where it goes')."""
    path = [state_id]
    current = oracle.states[state_id]
    while current.optimal_action and not current.is_goal and len(path) < limit:
        successors = current.successors.get(current.optimal_action, {})
        moves = {t: p for t, p in successors.items() if t not in path}
        if not moves:
            break
        nxt = max(moves.items(), key=lambda kv: (kv[1], -kv[0]))[0]
        path.append(nxt)
        current = oracle.states[nxt]
    return path if len(path) > 1 else []

"""What the Teach tab says about one case: the question, the oracle's answer and why.

Domain logic without Qt, so the explanations are tested on their own and any front end can show
them. Single-state questions are taught one state at a time, pair and subset questions with all
their states (K, L, … as the prompt names them). The words and reasons are each category's own
(``Category.answer_words``, ``state_fact``, ``state_reasons``, ``group_reasons``); this module
lists no category.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import PRIORITIZED, Category, TestCase
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.property_units import units_of
from explaincheck.core.taxonomy.registry import CATEGORIES, category
from explaincheck.core.taxonomy.state_letters import letters

MAX_CASES = 500  # cases offered per category (pairs and subsets can be very many)


def taught() -> tuple[Category, ...]:
    """The categories the Teach tab offers, in the registry's (Table 1) order."""
    return tuple(c for c in CATEGORIES.values() if c.teachable)


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
    best: dict[tuple[int, ...], float] = {}
    for candidate in category(category_id).candidates(oracle):
        states = tuple(candidate.states)
        best[states] = max(best.get(states, 0.0), candidate.delta)
    # the same as sorted(...)[:MAX_CASES]; a whole sort of 10^5 cases is one C call that keeps
    # the GUI thread waiting for the GIL, the heap's Python loop lets it run
    return heapq.nsmallest(MAX_CASES, best.items(), key=lambda kv: (-kv[1], kv[0]))


def lesson(
    oracle: OracleResult,
    environment: Environment,
    category_id: str,
    states: tuple[int, ...] | int,
    delta: float,
) -> Lesson:
    states = (states,) if isinstance(states, int) else tuple(states)
    found = category(category_id)
    case = TestCase(category_id, states, delta, PRIORITIZED, 0)
    situation = "\n\n".join(
        f"{name}{_describe(environment, oracle.state(s))}" for name, s in named_states(states)
    )
    right = found.oracle_answer(case, oracle)
    if len(states) == 1:
        why, path = explain(oracle, category_id, oracle.state(states[0]))
    else:
        why, path = explain_many(oracle, category_id, states)
    return Lesson(
        case=case,
        situation=situation,
        question=found.question(case, oracle),
        prompt=render_prompt(case, oracle, environment).text,
        answer=found.answer_words(right, found.expected(case, oracle)),
        why=why,
        path=path,
    )


def named_states(states: tuple[int, ...]) -> list[tuple[str, int]]:
    """("State K (id 5): ", 5)… as the prompt names them; "State 5: " for a single state."""
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
    found = category(category_id)
    facts = [oracle.state(s) for s in states]
    names = letters(len(states))
    lines = [
        f"{n} (state {f.id}): {found.state_fact(oracle, f)}"
        for n, f in zip(names, facts, strict=True)
    ]
    more, path = found.group_reasons(oracle, facts, names)
    return lines + more, path


def explain(oracle: OracleResult, category_id: str, s: StateFacts) -> tuple[list[str], list[int]]:
    """Reasons for the oracle's answer about one state, and a run to show on the graph."""
    units = units_of(oracle)  # "V(s) = Pmax[F goal]", or the property's V in its unit
    value = f"{units.value_label} = {units.words.value_text(s.value)}" + (
        f" (exactly {s.value_exact})" if s.value_exact and "/" in s.value_exact else ""
    )
    lines = [value]
    if s.q:
        sign = -1 if units.words.maximising else 1  # the best first
        ranked = sorted(s.q.items(), key=lambda kv: sign * kv[1])
        shown = ", ".join(f"{a} {units.words.value_text(v)}" for a, v in ranked)
        lines.append("Q(s, a): " + shown)
        best, worst = ", ".join(s.best), ", ".join(s.worst)
        lines.append(f"A* = {{{best}}} (best)    A° = {{{worst}}} (worst)")
        if s.optimal_action:
            lines.append(f"The optimal scheduler chooses {s.optimal_action} here.")
    else:
        lines.append("No labelled action here (goal, trap or deadlock).")
    more, path = category(category_id).state_reasons(oracle, s)
    return lines + more, path

"""Bottleneck? (state query): must every successful run pass through this state?

Truth: the oracle's exact bottleneck set (the goal becomes unreachable from the initial state when
the state is made absorbing). δ = C_B(s) (salience: the most central states look most like
bottlenecks). Binary: selection balances bottlenecks and non-bottlenecks. The initial state is not
a candidate (see ``sampling``).
"""

from __future__ import annotations

from typing import Any

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import STATE, TestCase
from explaincheck.core.taxonomy.kinds import SingleStateCategory, YesNoCategory, number
from explaincheck.core.taxonomy.pool_counts import bottleneck_counts
from explaincheck.core.taxonomy.property_words import words_of
from explaincheck.core.taxonomy.runs import run_avoiding, run_through
from explaincheck.core.taxonomy.sampling import bottleneck_pool

BOTTLENECK_DEFINITION = (
    "A bottleneck is a state that every successful run from the start must pass through: "
    "if the agent could never leave that state, the goal could no longer be reached from the "
    "start at all. The start state itself is not counted as a bottleneck."
)


def bottleneck_definition(oracle: OracleResult) -> str:
    """The definition the bottleneck questions start with: the paper's words under Pmax [F goal],
    else success in the property's words (a run that reaches its target, within the steps left,
    without entering the avoided states)."""
    words = words_of(oracle)
    if words.reaches_goal:
        return BOTTLENECK_DEFINITION
    return (
        f"A run is successful when it {words.success}. A bottleneck is a state that every"
        " successful run from the start must pass through: if the agent could never leave that"
        " state, no run from the start could be successful any more. The start state itself is"
        " not counted as a bottleneck."
    )


def bottleneck_reason(oracle: OracleResult) -> str | None:
    """Why the bottleneck family has no balanced cases here, or None."""
    prop = oracle.prop
    if not prop.is_reward and not prop.maximising:
        return (
            "under a minimal probability the target is what the agent avoids: a state every run"
            " to it passes is no bottleneck of success"
        )
    marked, unmarked = bottleneck_counts(oracle)
    if not marked:
        return "the model has no bottleneck state"
    if not unmarked:
        return "every candidate state is a bottleneck"
    return None


def bottleneck_fact(state: StateFacts) -> str:
    """Whether one state of a pair or subset is a bottleneck, and how central it looks."""
    kind = "a bottleneck" if state.bottleneck else "not a bottleneck"
    return f"{kind}; centrality C_B = {state.centrality:.3g}"


class Bottleneck(SingleStateCategory, YesNoCategory):
    id = "bottleneck"
    dimension = STATE
    title = "Bottleneck?"
    label = "Bttl."
    name = "bottleneck"

    def pool(self, oracle: OracleResult) -> list[StateFacts]:
        return bottleneck_pool(oracle)

    def not_applicable(self, oracle: OracleResult) -> str | None:
        return bottleneck_reason(oracle)

    def state_delta(self, state: StateFacts, oracle: OracleResult) -> float:
        return state.centrality

    def is_positive(self, state: StateFacts, oracle: OracleResult) -> bool | None:
        return state.bottleneck

    def truth(self, case: TestCase, oracle: OracleResult) -> bool:
        return oracle.state(case.states[0]).bottleneck

    def facts(self, case: TestCase, oracle: OracleResult) -> str:
        state = oracle.state(case.states[0])
        kind = "a bottleneck" if state.bottleneck else "not a bottleneck"
        return f"the state is {kind} (C_B = {number(state.centrality)})"

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return f"{bottleneck_definition(oracle)} Is this state a bottleneck?"

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        definition = bottleneck_definition(oracle)
        blocked = (
            "make the goal unreachable from the start?"
            if words_of(oracle).reaches_goal
            else "leave no successful run from the start?"
        )
        return (
            f"{definition} Does every successful run from the start have to pass "
            "through the current state?",
            f"{definition} Would blocking the current state (the agent could never "
            f"leave it) {blocked}",
        )

    def answer_words(self, right: Any, expected: dict[str, Any]) -> str:
        return "yes, it is a bottleneck" if right in (True, "yes") else "no, it is not a bottleneck"

    def state_reasons(self, oracle: OracleResult, state: StateFacts) -> tuple[list[str], list[int]]:
        if state.bottleneck:
            why = (
                "Bottleneck: making this state absorbing makes the goal unreachable from the "
                "initial state, so every successful run passes through it."
            )
            return [why], run_through(oracle, state.id)
        path = run_avoiding(oracle, state.id)
        if state.is_goal or state.is_initial:
            why = "Not a bottleneck: the initial and goal states never count."
        elif path:
            why = "Not a bottleneck: the highlighted run reaches the goal without it."
        else:
            why = "Not a bottleneck: no run from the initial state reaches the goal."
        return [why], path

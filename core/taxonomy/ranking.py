"""Full ranking? (preference query): order all available actions from best to worst.

Passes iff the answer is a permutation of exactly the available actions and, for every two actions
with Q(a) > Q(b) beyond a tie (the oracle's ``action_order`` groups: exact under the exact method,
else within the tie tolerance), a comes before b; tied actions may appear in either order.

δ = 1 − the smallest adjacent gap of the true ordering (ambiguity). The true ordering is the
ordering up to ties, so adjacent means adjacent groups of equal Q: a zero gap between tied actions
is no decision the answer has to get right (either order passes). A state whose actions are all
tied has nothing to order and gets δ = 0. (Counting zero gaps would give every state with a tie
δ = 1, the maximum, and prioritised selection would pick the cases that are easiest to pass.)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.answers import AnswerForm, ranking_form
from explaincheck.core.taxonomy.base import FAIL, PASS, Grade, GradingSettings, TestCase
from explaincheck.core.taxonomy.kinds import PreferenceCategory, number

MAX_LISTED = 3  # order violations spelled out in a reason


def smallest_gap(state: StateFacts) -> float | None:
    """Smallest difference between adjacent action values Q_(i) - Q_(i+1) in the decreasing
    sort, as the paper defines it (tied actions give a gap of 0, so δ = 1: the paper's formula,
    which DESIGN.md says wins; ties still grade either-order-correct). None: fewer than 2."""
    if sum(len(group) for group in state.action_order) < 2:
        return None
    if any(len(group) > 1 for group in state.action_order):
        return 0.0  # exact tie (the groups decide ties exactly, not the float values)
    ordered = [state.q[group[0]] for group in state.action_order]
    return min(ordered[i] - ordered[i + 1] for i in range(len(ordered) - 1))


class Ranking(PreferenceCategory):
    id = "ranking"
    title = "Full ranking?"

    def state_delta(self, state: StateFacts, oracle: OracleResult) -> float:
        gap = smallest_gap(state)
        return 0.0 if gap is None else 1.0 - gap

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return (
            "Order all available actions from best to worst by the probability of eventually "
            "reaching the goal when the agent takes the action now and acts as well as possible "
            "afterwards. List every available action exactly once."
        )

    def answer_form(self, case: TestCase, oracle: OracleResult) -> AnswerForm:
        return ranking_form(oracle.state(case.states[0]).actions)

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> list[str]:
        return [a for group in oracle.state(case.states[0]).action_order for a in group]

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        return {"ranking": [list(group) for group in oracle.state(case.states[0]).action_order]}

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        state = oracle.state(case.states[0])
        expected = self.expected(case, oracle)
        given = {"ranking": list(answer)}
        problem = _not_a_permutation(list(answer), state.actions)
        if problem:
            return Grade(FAIL, problem, given, expected)
        group = {a: i for i, members in enumerate(state.action_order) for a in members}
        position = {a: i for i, a in enumerate(answer)}
        wrong = [
            f"{b} (Q={number(state.q[b])}) placed before {a} (Q={number(state.q[a])})"
            for a in answer
            for b in answer
            if group[a] < group[b] and position[a] > position[b]
        ]
        if wrong:
            more = f" and {len(wrong) - MAX_LISTED} more" if len(wrong) > MAX_LISTED else ""
            return Grade(FAIL, "; ".join(wrong[:MAX_LISTED]) + more, given, expected)
        return Grade(PASS, "consistent with the true order up to ties", given, expected)


def _not_a_permutation(answer: list[str], actions: tuple[str, ...]) -> str:
    """Why ``answer`` is not a permutation of ``actions`` ("" if it is)."""
    counts = Counter(answer)
    missing = [a for a in actions if a not in counts]
    repeated = [a for a, n in counts.items() if n > 1]
    extra = [a for a in counts if a not in actions]
    parts = []
    if missing:
        parts.append(f"missing {', '.join(missing)}")
    if repeated:
        parts.append(f"repeated {', '.join(repeated)}")
    if extra:
        parts.append(f"not available {', '.join(extra)}")
    return "not a permutation of the available actions: " + "; ".join(parts) if parts else ""

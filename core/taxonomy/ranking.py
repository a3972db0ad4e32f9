"""Full ranking? (preference query): order all available actions from best to worst.

Passes iff the answer is a permutation of exactly the available actions and, for every two actions
with Q(a) > Q(b) beyond a tie (the oracle's ``action_order`` groups: exact under the exact method,
else within the tie tolerance), a comes before b; tied actions may appear in either order. A
list that is not a permutation (an action repeated, left out or not available) is ``invalid``:
it is not an answer of the asked form (docs/method.md §6).

Pool: preference states whose offered actions (do-nothing ones left out unless kept,
``case_rules``) have at least two *distinct* Q values (two tie groups). A state whose actions all
tie is not a ranking case: every order passes there.

δ = 1 − the smallest gap between adjacent *distinct* Q values, i.e. between adjacent tie groups of
the decreasing sort. This deviates from the paper's literal formula (smallest gap between adjacent
sorted Q values), which gives a gap of 0 and so the maximum δ = 1 to any state with a tie: the
prioritised selection then picked exactly the cases that are easiest to pass (docs/method.md).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.answers import AnswerForm, ranking_form
from explaincheck.core.taxonomy.base import FAIL, INVALID, PASS, Grade, GradingSettings, TestCase
from explaincheck.core.taxonomy.case_rules import offered_order, order_gaps, scaled
from explaincheck.core.taxonomy.kinds import PreferenceCategory, number
from explaincheck.core.taxonomy.metamorphic import shown_actions
from explaincheck.core.taxonomy.property_words import words_of

MAX_LISTED = 3  # order violations spelled out in a reason


def smallest_gap(state: StateFacts, keep_do_nothing: bool = False) -> float | None:
    """Smallest difference between adjacent distinct values of the offered actions: Q of one
    tie group minus Q of the next in the decreasing order (``action_order`` decides ties
    exactly under the exact method). None: fewer than two tie groups, so nothing to order."""
    gaps = order_gaps(state, offered_order(state, keep_do_nothing))
    return min(gaps) if gaps else None


class Ranking(PreferenceCategory):
    id = "ranking"
    title = "Full ranking?"
    label = "Rank"
    name = "action ranking"

    def answer_words(self, right: Any, expected: dict[str, Any]) -> str:
        groups = next(iter(expected.values()), None)
        if isinstance(groups, list) and groups and isinstance(groups[0], list):
            return " > ".join(" = ".join(g) if len(g) > 1 else g[0] for g in groups)
        return " > ".join(map(str, right)) if isinstance(right, list) else str(right)

    def offered_delta(self, state: StateFacts, keep_do_nothing: bool, width: float = 1.0) -> float:
        gap = smallest_gap(state, keep_do_nothing)
        return 0.0 if gap is None else 1.0 - scaled(gap, width)

    def offered_gap(self, state: StateFacts, keep_do_nothing: bool, width: float = 1.0) -> float:
        gap = smallest_gap(state, keep_do_nothing)
        return 0.0 if gap is None else scaled(gap, width)

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                "Order all available actions from best to worst by the probability of eventually "
                "reaching the goal when the agent takes the action now and acts as well as "
                "possible afterwards. List every available action exactly once."
            )
        return (
            f"Order all available actions from best to worst by {words.quantity} when the agent"
            f" takes the action now and afterwards acts to make it {words.aim} (best: the"
            f" {words.best} value). List every available action exactly once."
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        words = words_of(oracle)
        if words.reaches_goal:
            return (
                "Rank the available actions: first the one that makes eventually reaching the "
                "goal most likely if the agent plays optimally after it, last the one that makes "
                "it least likely. Include each available action once.",
                "Sort every available action by how likely the goal is eventually reached when "
                "the agent takes it now and then acts optimally, from highest to lowest. Use "
                "each action exactly once.",
            )
        return (
            f"Rank the available actions: first the one that gives the {words.best} value of"
            f" {words.quantity} if the agent plays optimally after it, last the one that gives"
            f" the {words.worst}. Include each available action once.",
            f"Sort every available action by {words.quantity} when the agent takes it now and"
            f" then acts optimally, from the {words.best} value to the {words.worst}. Use each"
            " action exactly once.",
        )

    def answer_form(self, case: TestCase, oracle: OracleResult) -> AnswerForm:
        return ranking_form(shown_actions(case, self.listed_actions(case, oracle)))

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> list[str]:
        return [a for group in self.offered_order(case, oracle) for a in group]

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        return {"ranking": [list(group) for group in self.offered_order(case, oracle)]}

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        state = oracle.state(case.states[0])
        expected = self.expected(case, oracle)
        given = {"ranking": list(answer)}
        problem = _not_a_permutation(list(answer), self.listed_actions(case, oracle))
        if problem:  # outside the asked form (the schema pins length and uniqueness): method §6
            return Grade(INVALID, problem, given, expected)
        order = self.offered_order(case, oracle)
        group = {a: i for i, members in enumerate(order) for a in members}
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

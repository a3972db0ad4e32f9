"""Shared shapes of categories: one state, yes/no answers, pairs of states, subsets of states.

The category modules (the built-in ones and those of plugin packages) subclass these and add only
what is theirs (pool, δ, question, truth).
"""

from __future__ import annotations

import inspect
import math
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.answers import (
    NO,
    YES,
    AnswerForm,
    action_form,
    state_form,
    yes_no_form,
)
from explaincheck.core.taxonomy.base import (
    FAIL,
    MODE,
    PASS,
    PREFERENCE,
    SCOPE,
    Candidate,
    Category,
    Grade,
    GradingSettings,
    TestCase,
)
from explaincheck.core.taxonomy.case_rules import (
    capped,
    offered_actions,
    offered_order,
    order_gaps,
    reads_as_failure,
    scaled,
)
from explaincheck.core.taxonomy.metamorphic import shown_actions, state_names
from explaincheck.core.taxonomy.pool_counts import decided_count, non_goal_count, spread_is_tied
from explaincheck.core.taxonomy.property_words import words_of
from explaincheck.core.taxonomy.sampling import (
    DEFAULT_SUBSET_SIZE,
    delta,
    keys_tied,
    non_goal,
    preference_pool,
    quantity_key,
    rng_for,
    untied_pairs,
)
from explaincheck.core.taxonomy.sampling import subsets as sample_subsets
from explaincheck.core.taxonomy.value_scale import normalised_gap, scale_of


def number(value: float | None) -> str:
    """A value for a human-readable reason (4 significant digits; an infinite expected reward
    is ∞, ``PropertyWords.value_text`` says it in words)."""
    if value is None:
        return "n/a"
    return "∞" if math.isinf(value) else f"{value:.4g}"


class SingleStateCategory(Category):
    """Candidates are single states of ``pool`` with a per-state δ."""

    def pool(self, oracle: OracleResult) -> list[StateFacts]:
        return non_goal(oracle)

    @abstractmethod
    def state_delta(self, state: StateFacts, oracle: OracleResult) -> float:
        """δ of the case about ``state`` (paper section 5)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A class written for the one-argument ``is_positive(state)`` of earlier versions (a
        plugin's) keeps working: it is called without the oracle."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("is_positive")
        if callable(own) and len(inspect.signature(own).parameters) == 2:  # (self, state)

            def is_positive(self: Any, state: StateFacts, oracle: OracleResult) -> bool | None:
                return own(self, state)

            cls.is_positive = is_positive  # type: ignore[method-assign]

    def is_positive(self, state: StateFacts, oracle: OracleResult) -> bool | None:
        """Class of the case in a binary category (None otherwise). ``oracle`` is there for a
        class that depends on more than the state's own facts: a distance in the graph
        (``pool_counts.moves_to_goal``), another state's value."""
        return None

    def state_reading(self, state: StateFacts) -> bool:
        """Whether the case about ``state`` is answered by reading (``case_rules``)."""
        return False

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        found = []
        for s in self.pool(oracle):
            reading = self.state_reading(s)
            amount = capped(self.state_delta(s, oracle), reading)
            found.append(
                Candidate(self.id, (s.id,), delta(amount), self.is_positive(s, oracle), reading)
            )
        return found


# Why a model with one choice per state (a DTMC, or an MDP without decisions) has no question
# about actions, in the words every front end shows.
NO_CHOICES = "the model has no decisions (one choice per state, as in a DTMC): no action to prefer"


class PreferenceCategory(SingleStateCategory):
    """Preference queries: one non-goal state whose offered actions (``case_rules``: do-nothing
    actions left out unless kept) have at least two different values; where every action ties,
    any answer passes, so such a state is no case."""

    dimension = PREFERENCE

    def pool(self, oracle: OracleResult, keep_do_nothing: bool = False) -> list[StateFacts]:
        return [s for s in preference_pool(oracle) if len(offered_order(s, keep_do_nothing)) >= 2]

    def not_applicable(self, oracle: OracleResult) -> str | None:
        if decided_count(oracle):
            return None
        if oracle.model.choices <= oracle.model.states:  # a DTMC: one behaviour per state
            return NO_CHOICES
        return (
            "no state outside the goal has two actions of different value"
            " (do-nothing actions left out)"
        )

    @abstractmethod
    def offered_delta(self, state: StateFacts, keep_do_nothing: bool, width: float = 1.0) -> float:
        """δ of the case about ``state`` over its offered actions (``width``: the value range
        that normalises a gap, ``value_scale``; 1 for a probability)."""

    @abstractmethod
    def offered_gap(self, state: StateFacts, keep_do_nothing: bool, width: float = 1.0) -> float:
        """The Q difference that decides the case (``case_rules``: the deciding difference), as
        a share of ``width``."""

    def state_delta(self, state: StateFacts, oracle: OracleResult) -> float:
        return self.offered_delta(state, False, scale_of(oracle).width)

    def candidates(
        self, oracle: OracleResult, seed: int = 0, keep_do_nothing: bool = False
    ) -> list[Candidate]:
        width = scale_of(oracle).width
        return [
            Candidate(
                self.id,
                (s.id,),
                delta(self.offered_delta(s, keep_do_nothing, width)),
                gap=self.offered_gap(s, keep_do_nothing, width),
            )
            for s in self.pool(oracle, keep_do_nothing)
        ]

    def listed_actions(self, case: TestCase, oracle: OracleResult) -> tuple[str, ...]:
        return offered_actions(oracle.state(case.states[0]), case.keep_do_nothing)

    def offered_order(self, case: TestCase, oracle: OracleResult) -> tuple[tuple[str, ...], ...]:
        return offered_order(oracle.state(case.states[0]), case.keep_do_nothing)


class ActionChoiceCategory(PreferenceCategory):
    """Name one action; it passes iff it lies in the oracle's set (A* or A°) of the state,
    taken over the offered actions."""

    @abstractmethod
    def pick(self, ordered: Sequence[Any]) -> Any:
        """The end of a best-first sequence this category asks for (first: best, last: worst)."""

    def right_actions(self, state: StateFacts, keep_do_nothing: bool = False) -> tuple[str, ...]:
        """The accepted actions (A*(s) or A°(s) among the offered actions)."""
        return self.pick(offered_order(state, keep_do_nothing))

    def offered_delta(self, state: StateFacts, keep_do_nothing: bool, width: float = 1.0) -> float:
        right = self.right_actions(state, keep_do_nothing)
        return 1.0 - len(right) / len(offered_actions(state, keep_do_nothing))

    def offered_gap(self, state: StateFacts, keep_do_nothing: bool, width: float = 1.0) -> float:
        return scaled(self.pick(order_gaps(state, offered_order(state, keep_do_nothing))), width)

    def _right(self, case: TestCase, oracle: OracleResult) -> tuple[str, ...]:
        return self.right_actions(oracle.state(case.states[0]), case.keep_do_nothing)

    def answer_form(self, case: TestCase, oracle: OracleResult) -> AnswerForm:
        return action_form(shown_actions(case, self.listed_actions(case, oracle)))

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        return {"action": list(self._right(case, oracle))}

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> str:
        return self._right(case, oracle)[0]

    def answer_words(self, right: Any, expected: dict[str, Any]) -> str:
        accepted = next(iter(expected.values()), [right])
        if isinstance(accepted, list) and len(accepted) > 1:
            return f"{right} (any of {', '.join(map(str, accepted))} is right)"
        return str(right)

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        state = oracle.state(case.states[0])
        right = self._right(case, oracle)
        listed = self.listed_actions(case, oracle)
        values = ", ".join(f"{a}={number(state.q[a])}" for a in listed)
        verdict = PASS if answer in right else FAIL
        reason = f"answered {answer}; accepted {{{', '.join(right)}}} (Q: {values})"
        return Grade(verdict, reason, {"action": answer}, {"action": list(right)})


class YesNoCategory(Category):
    """A binary category: the answer is yes/no, the truth comes from the oracle's exact sets."""

    binary = True

    @abstractmethod
    def truth(self, case: TestCase, oracle: OracleResult) -> bool:
        """Whether the right answer is yes."""

    @abstractmethod
    def facts(self, case: TestCase, oracle: OracleResult) -> str:
        """The oracle facts behind the truth, for the grade's reason."""

    def answer_form(self, case: TestCase, oracle: OracleResult) -> AnswerForm:
        return yes_no_form()

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> str:
        return YES if self.truth(case, oracle) else NO

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        return {"answer": self.oracle_answer(case, oracle)}

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        right = self.oracle_answer(case, oracle)
        verdict = PASS if answer == right else FAIL
        reason = f"answered {answer}, expected {right}: {self.facts(case, oracle)}"
        return Grade(verdict, reason, {"answer": answer}, {"answer": right})


def pair_names(case: TestCase) -> str:
    """How a pair question names its two states, as the prompt labels them: "K or L"."""
    return " or ".join(state_names(case, 2))


class PairCategory(Category):
    """Mode queries: which of the case's two states (named ``letters(2)``, K and L, in presentation
    order). Questions, reasons and the schema all use the names the prompt shows."""

    dimension = MODE

    @abstractmethod
    def right_index(self, case: TestCase, oracle: OracleResult) -> int:
        """0 if the first state (K) is the right answer, 1 if the second (L) is."""

    @abstractmethod
    def facts(self, case: TestCase, oracle: OracleResult) -> str:
        """The compared oracle values, for the grade's reason."""

    def answer_form(self, case: TestCase, oracle: OracleResult) -> AnswerForm:
        return state_form(state_names(case, 2))

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> str:
        return state_names(case, 2)[self.right_index(case, oracle)]

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        return {"state": self.oracle_answer(case, oracle)}

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        right = self.oracle_answer(case, oracle)
        verdict = PASS if answer == right else FAIL
        reason = f"answered {answer}, expected {right}: {self.facts(case, oracle)}"
        return Grade(verdict, reason, {"state": answer}, {"state": right})


class QuantityPairCategory(PairCategory):
    """Which of two non-goal states has the higher V / lower D; tied pairs are not generated.

    δ = 1 − |difference| (ambiguity). Candidate pairs: ``sampling.untied_pairs``.
    """

    quantity: str  # "value" (V) or "danger" (D)
    higher_is_right: bool  # V: the higher one; D: the lower one
    symbol: str  # "V" or "D", for reasons

    def pool(self, oracle: OracleResult) -> list[StateFacts]:
        return non_goal(oracle)

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        if self.quantity == "danger" and not oracle.has_danger:
            return []
        pool = self.pool(oracle)
        key_of = quantity_key(oracle, self.quantity)
        key = {s.id: key_of(s) for s in pool}
        rng = rng_for(self.id, "candidates", seed)
        pairs = untied_pairs([s.id for s in pool], key, keys_tied(oracle), rng)
        amount = {s.id: getattr(s, self.quantity) for s in pool}
        shows = {s.id for s in pool if reads_as_failure(s)}
        found = []
        for first, second in pairs:
            gap = self.gap(amount[first], amount[second], oracle)
            reading = first in shows or second in shows
            amount_delta = delta(capped(1.0 - gap, reading))
            found.append(Candidate(self.id, (first, second), amount_delta, None, reading, gap))
        return found

    def not_applicable(self, oracle: OracleResult) -> str | None:
        if non_goal_count(oracle) < 2:
            return "fewer than two states outside the goal"
        if spread_is_tied(oracle, self.quantity):
            return f"all states outside the goal have the same {self.symbol}"
        return None

    def gap(self, first: float, second: float, oracle: OracleResult) -> float:
        """The pair's deciding difference as a share of the value range (``value_scale``:
        D is a probability; V of an expected reward is normalised by its range)."""
        if self.quantity == "danger":
            return abs(first - second)
        return normalised_gap(abs(first - second) if first != second else 0.0, oracle)

    def higher_wins(self, oracle: OracleResult) -> bool:
        """Whether the higher value is the right answer: D's lower always; V's higher under a
        maximising property, its lower under a minimising one (less expected time)."""
        if self.quantity == "value":
            return self.higher_is_right == oracle.prop.maximising
        return self.higher_is_right

    def right_index(self, case: TestCase, oracle: OracleResult) -> int:
        first, second = (oracle.state(i) for i in case.states)
        order = oracle.compare(first, second, self.quantity)
        if order == 0:
            raise ValueError(f"tied pair {case.states} is no {self.id} case")
        return 0 if (order > 0) == self.higher_wins(oracle) else 1

    def facts(self, case: TestCase, oracle: OracleResult) -> str:
        first, second = state_names(case, 2)
        a, b = (oracle.state(i) for i in case.states)
        value_a, value_b = getattr(a, self.quantity), getattr(b, self.quantity)
        shown = words_of(oracle).value_text if self.quantity == "value" else number
        return (
            f"{self.symbol}({first}) = {shown(value_a)}, {self.symbol}({second}) = {shown(value_b)}"
        )


class SubsetCategory(YesNoCategory):
    """Scope queries: is at least one state of the subset marked (bottleneck, dead end)?

    Candidates are k-subsets (``subset_size``, default 4) of ``pool`` sampled by
    ``sampling.subsets``; a subset's δ is computed from the ``score`` of its members.
    """

    dimension = SCOPE
    subset_size: int = DEFAULT_SUBSET_SIZE
    member_word: str  # "bottleneck" or "dead end", for reasons

    def __init__(self, subset_size: int = DEFAULT_SUBSET_SIZE) -> None:
        self.subset_size = subset_size

    def pool(self, oracle: OracleResult) -> list[StateFacts]:
        return non_goal(oracle)

    @abstractmethod
    def marked(self, state: StateFacts) -> bool:
        """Whether the state makes a subset positive."""

    @abstractmethod
    def score(self, state: StateFacts, oracle: OracleResult) -> float:
        """The state's contribution to δ (used to seed samples around high-δ states)."""

    @abstractmethod
    def subset_delta(self, members: list[StateFacts], oracle: OracleResult) -> float:
        """δ of the subset (paper section 5)."""

    def subset_reading(self, members: list[StateFacts]) -> bool:
        """Whether a subset is answered by reading (``case_rules``); its δ is then capped."""
        return False

    @abstractmethod
    def class_sizes(self, oracle: OracleResult) -> tuple[int, int]:
        """(#states that can make a positive subset, #states for negative subsets), counted
        without making facts (``pool_counts``)."""

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        pool = self.pool(oracle)
        marked = {s.id for s in pool if self.marked(s)}
        score = {s.id: self.score(s, oracle) for s in pool}
        rng = rng_for(self.id, "candidates", seed)
        found = sample_subsets([s.id for s in pool], marked, score, self.subset_size, rng)
        result = []
        for ids in found:
            members = [oracle.state(i) for i in ids]
            positive = any(i in marked for i in ids)
            reading = self.subset_reading(members)
            amount = delta(capped(self.subset_delta(members, oracle), reading))
            result.append(Candidate(self.id, ids, amount, positive, reading))
        return result

    def truth(self, case: TestCase, oracle: OracleResult) -> bool:
        return any(self.marked(oracle.state(i)) for i in case.states)

    def facts(self, case: TestCase, oracle: OracleResult) -> str:
        names = state_names(case, len(case.states))
        hits = [n for n, i in zip(names, case.states, strict=True) if self.marked(oracle.state(i))]
        if not hits:
            return f"no state of the subset is a {self.member_word}"
        return f"{self.member_word} in the subset: {', '.join(hits)}"

"""Dead ends in the subset? (scope query): does a k-subset contain a state with V(s) = 0?

Subsets of ``subset_size`` (default 4) non-goal states (``sampling.subsets``: all of them while few
enough, else seeded samples around the lowest-valued states). Binary: positives contain a dead end.

δ of a negative subset = 1 − min V over the subset (ambiguity: a state close to V = 0 looks like a
dead end); the paper's formula gives every positive subset δ = 1.

**Reading.** The prompt shows what happened in an absorbing failure (a hole, an eaten goat) and
the generic wording prints its labels (``labels here: unsafe``), so the *label rule* "yes iff a
listed state reads as a failure" (``case_rules.reads_as_failure``) answers many subsets without
any reasoning. A subset is a reading case when that rule gives the right answer, whatever the
truth: a positive holding a failure state and a negative holding none alike. Its δ is capped at
½, so prioritised selection prefers *live* dead ends (V = 0, yet nothing in the words says so)
where the model has them. On a model with no live dead end (every dead end a labelled or
absorbing failure: cliff, frozen_lake, ...) the whole category is a reading test: every case is
marked reading and the plan warns (``case_rules.degenerate_reason``, docs/method.md §4).
"""

from __future__ import annotations

from dataclasses import replace

from explaincheck.core.oracle.property_values import failing_value
from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import Candidate, TestCase
from explaincheck.core.taxonomy.case_rules import (
    READING_DELTA,
    capped,
    is_live_dead_end,
    reads_as_failure,
)
from explaincheck.core.taxonomy.kinds import SubsetCategory
from explaincheck.core.taxonomy.pool_counts import dead_end_counts
from explaincheck.core.taxonomy.property_words import dead_end_words, words_of
from explaincheck.core.taxonomy.value_scale import failure_closeness

# δ of a positive subset that holds an absorbing failure state (the reading cap of case_rules)
VISIBLE_DEAD_END_DELTA = READING_DELTA


DEAD_END_DEFINITION = (
    "A dead end is a state from which the goal can no longer be reached at all (probability 0), "
    "whatever the agent does."
)


def dead_end_definition(oracle: OracleResult) -> str:
    """What a dead end is, for the question: the paper's words under Pmax [F goal], else the
    property's (``property_words.dead_end_words``)."""
    words = words_of(oracle)
    if words.reaches_goal:
        return DEAD_END_DEFINITION
    return f"A dead end is a state from which {dead_end_words(words)}."


class SubsetDeadEnd(SubsetCategory):
    id = "subset_dead_end"
    title = "Dead ends in the subset?"
    label = "Sub.D"
    name = "dead end in subset"
    member_word = "dead end"

    def not_applicable(self, oracle: OracleResult) -> str | None:
        if failing_value(oracle.prop) is None:
            return (
                "under a maximal expected reward no value is a failure (an infinite one is the"
                " most the agent can collect), so there is no dead end to ask about"
            )
        marked, unmarked = self.class_sizes(oracle)
        if not marked:
            return "the model has no dead end outside the goal"
        if marked + unmarked < self.subset_size:
            return f"fewer than {self.subset_size} states outside the goal"
        if unmarked < self.subset_size:
            return f"fewer than {self.subset_size} states that are not dead ends"
        return None

    def class_sizes(self, oracle: OracleResult) -> tuple[int, int]:
        return dead_end_counts(oracle)

    def marked(self, state: StateFacts) -> bool:
        return state.dead_end

    def score(self, state: StateFacts, oracle: OracleResult) -> float:
        return capped(failure_closeness(state, oracle), reads_as_failure(state))

    def subset_delta(self, members: list[StateFacts], oracle: OracleResult) -> float:
        """The paper's 1 − min V (1 for every positive subset), in general how close the
        member nearest to a dead end is to one (``value_scale.failure_closeness``); the
        category's ``candidates`` caps it at ½ for a reading subset (``subset_reading``)."""
        return max(failure_closeness(s, oracle) for s in members)

    def subset_reading(self, members: list[StateFacts]) -> bool:
        """Whether the label rule answers the subset rightly (yes iff a member reads as a
        failure), whichever the truth."""
        rule = any(reads_as_failure(s) for s in members)
        return rule == any(s.dead_end for s in members)

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        """The subsets of ``SubsetCategory``; all of them reading cases where the model has no
        live dead end (the rule answers every positive, so the category tests reading)."""
        found = super().candidates(oracle, seed)
        if any(is_live_dead_end(s) for s in self.pool(oracle)):
            return found
        return [replace(c, delta=min(c.delta, READING_DELTA), reading=True) for c in found]

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        definition = dead_end_definition(oracle)
        return f"{definition} Is at least one of the states listed above a dead end?"

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        definition = dead_end_definition(oracle)
        words = words_of(oracle)
        if words.reaches_goal:
            last = "which the goal can no longer be reached?"
        else:
            last = f"which {dead_end_words(words)}?"
        return (
            f"{definition} Does the list of states above contain any dead end?",
            f"{definition} Among the states listed above, is there one or more from {last}",
        )

    def state_fact(self, oracle: OracleResult, state: StateFacts) -> str:
        kind = "a dead end" if state.dead_end else "not a dead end"
        return f"{super().state_fact(oracle, state)}: {kind}"

    def group_reasons(
        self, oracle: OracleResult, states: list[StateFacts], names: tuple[str, ...]
    ) -> tuple[list[str], list[int]]:
        words = words_of(oracle)
        if words.reaches_goal:
            if any(f.dead_end for f in states):
                return ["Yes: at least one of them is a dead end (V = 0)."], []
            return ["No: from each of them some policy still reaches the goal (V > 0)."], []
        if any(f.dead_end for f in states):
            return [f"Yes: from at least one of them {dead_end_words(words)}."], []
        return ["No: from each of them some policy still does better than a dead end."], []

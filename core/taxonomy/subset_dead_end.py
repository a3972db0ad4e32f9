"""Dead ends in the subset? (scope query): does a k-subset contain a state with V(s) = 0?

Subsets of ``subset_size`` (default 4) non-goal states (``sampling.subsets``: all of them while few
enough, else seeded samples around the lowest-valued states). δ = 1 − min V over the subset
(ambiguity on the negatives); positive subsets tie at δ = 1, so the seeded tie-break samples them
uniformly. Binary: positives contain a dead end.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.kinds import SubsetCategory

DEAD_END_DEFINITION = (
    "A dead end is a state from which the goal can no longer be reached at all (probability 0), "
    "whatever the agent does."
)


class SubsetDeadEnd(SubsetCategory):
    id = "subset_dead_end"
    title = "Dead ends in the subset?"
    member_word = "dead end"

    def not_applicable(self, oracle: OracleResult) -> str | None:
        marked, unmarked = self.class_sizes(oracle)
        if not marked:
            return "the model has no dead end outside the goal"
        if marked + unmarked < self.subset_size:
            return f"fewer than {self.subset_size} states outside the goal"
        if unmarked < self.subset_size:
            return f"fewer than {self.subset_size} states that are not dead ends"
        return None

    def marked(self, state: StateFacts) -> bool:
        return state.dead_end

    def score(self, state: StateFacts) -> float:
        return 1.0 - state.value

    def subset_delta(self, members: list[StateFacts]) -> float:
        return 1.0 - min(s.value for s in members)

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return f"{DEAD_END_DEFINITION} Is at least one of the states listed above a dead end?"

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        return (
            f"{DEAD_END_DEFINITION} Does the list of states above contain any dead end?",
            f"{DEAD_END_DEFINITION} Among the states listed above, is there one or more from "
            "which the goal can no longer be reached?",
        )

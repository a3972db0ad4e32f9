"""Bottleneck in the subset? (scope query): is any state of a k-subset a bottleneck?

Subsets of ``subset_size`` (default 4) states drawn from the non-goal, non-initial states
(``sampling.subsets``: all of them while few enough, else seeded samples around the most central
states). δ = max C_B over the subset (salience). Binary: positives contain a bottleneck.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.bottleneck import (
    bottleneck_definition,
    bottleneck_fact,
    bottleneck_reason,
)
from explaincheck.core.taxonomy.kinds import SubsetCategory
from explaincheck.core.taxonomy.pool_counts import bottleneck_counts
from explaincheck.core.taxonomy.runs import run_through
from explaincheck.core.taxonomy.sampling import bottleneck_pool


class SubsetBottleneck(SubsetCategory):
    id = "subset_bottleneck"
    title = "Bottleneck in the subset?"
    label = "Sub.B"
    name = "bottleneck in subset"
    member_word = "bottleneck"

    def pool(self, oracle: OracleResult) -> list[StateFacts]:
        return bottleneck_pool(oracle)

    def not_applicable(self, oracle: OracleResult) -> str | None:
        reason = bottleneck_reason(oracle)
        if reason is not None and "minimal probability" in reason:
            return reason
        marked, unmarked = self.class_sizes(oracle)
        if not marked:
            return "the model has no bottleneck state"
        if marked + unmarked < self.subset_size:
            return f"fewer than {self.subset_size} candidate states"
        if unmarked < self.subset_size:
            return f"fewer than {self.subset_size} states that are not bottlenecks"
        return None

    def class_sizes(self, oracle: OracleResult) -> tuple[int, int]:
        return bottleneck_counts(oracle)

    def marked(self, state: StateFacts) -> bool:
        return state.bottleneck

    def score(self, state: StateFacts, oracle: OracleResult) -> float:
        return state.centrality

    def subset_delta(self, members: list[StateFacts], oracle: OracleResult) -> float:
        return max(s.centrality for s in members)

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        definition = bottleneck_definition(oracle)
        return f"{definition} Is at least one of the states listed above a bottleneck?"

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        definition = bottleneck_definition(oracle)
        return (
            f"{definition} Does the list of states above contain any bottleneck?",
            f"{definition} Among the states listed above, is there one or more that "
            "every successful run from the start must pass through?",
        )

    def state_fact(self, oracle: OracleResult, state: StateFacts) -> str:
        return bottleneck_fact(state)

    def group_reasons(
        self, oracle: OracleResult, states: list[StateFacts], names: tuple[str, ...]
    ) -> tuple[list[str], list[int]]:
        found = [f for f in states if f.bottleneck]
        if not found:
            return ["No: none of them is a bottleneck; the goal is reachable around each."], []
        why = "Yes: at least one of them is a bottleneck (a run through it is shown)."
        return [why], run_through(oracle, found[0].id)

"""Which state is the bottleneck? (mode query): one true bottleneck paired with one decoy.

Pairs one bottleneck with one non-bottleneck decoy (neither goal nor initial state), each pair once
in a seeded presentation order. δ = C_B(decoy) (salience: a central decoy mimics a bottleneck);
a decoy that is an absorbing failure is read off its words: a reading case, δ at most ½
(``case_rules``).
Not applicable without a bottleneck or without a non-bottleneck decoy.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import Candidate, TestCase
from explaincheck.core.taxonomy.bottleneck import (
    bottleneck_definition,
    bottleneck_fact,
    bottleneck_reason,
)
from explaincheck.core.taxonomy.case_rules import capped, is_visible_dead_end
from explaincheck.core.taxonomy.kinds import PairCategory, number, pair_names
from explaincheck.core.taxonomy.metamorphic import state_names
from explaincheck.core.taxonomy.runs import run_through
from explaincheck.core.taxonomy.sampling import bottleneck_pool, cross_pairs, delta, rng_for


class WhichBottleneck(PairCategory):
    id = "which_bottleneck"
    title = "Which state is the bottleneck?"
    label = "W.Bttl."
    name = "which is bottleneck"

    def not_applicable(self, oracle: OracleResult) -> str | None:
        return bottleneck_reason(oracle)

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        pool = bottleneck_pool(oracle)
        true = [s.id for s in pool if s.bottleneck]
        decoys = [s.id for s in pool if not s.bottleneck]
        centrality = {s.id: s.centrality for s in pool}
        pairs = cross_pairs(true, decoys, centrality, rng_for(self.id, "candidates", seed))
        shows = {s.id for s in pool if is_visible_dead_end(s)}
        result = []
        for pair in pairs:
            decoy = pair[1] if oracle.state(pair[0]).bottleneck else pair[0]
            reading = decoy in shows  # a decoy whose words show the run is over
            amount = delta(capped(centrality[decoy], reading))
            result.append(Candidate(self.id, pair, amount, None, reading))
        return result

    def right_index(self, case: TestCase, oracle: OracleResult) -> int:
        return 0 if oracle.state(case.states[0]).bottleneck else 1

    def facts(self, case: TestCase, oracle: OracleResult) -> str:
        first, second = state_names(case, 2)
        a, b = (oracle.state(i) for i in case.states)
        return (
            f"bottleneck: {first if a.bottleneck else second}; "
            f"C_B({first}) = {number(a.centrality)}, C_B({second}) = {number(b.centrality)}"
        )

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        definition = bottleneck_definition(oracle)
        return (
            f"{definition} Exactly one of the two states, {pair_names(case)}, is a bottleneck. "
            "Which one?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        definition = bottleneck_definition(oracle)
        return (
            f"{definition} One of the states {pair_names(case)} is a bottleneck and "
            "the other is not. Name the bottleneck.",
            f"{definition} Of the two states {pair_names(case)}, exactly one must be "
            "passed by every successful run from the start. Which?",
        )

    def state_fact(self, oracle: OracleResult, state: StateFacts) -> str:
        return bottleneck_fact(state)

    def group_reasons(
        self, oracle: OracleResult, states: list[StateFacts], names: tuple[str, ...]
    ) -> tuple[list[str], list[int]]:
        found = [f for f in states if f.bottleneck]
        if not found:
            return [], []
        why = (
            f"{names[states.index(found[0])]} is the bottleneck: every successful run passes "
            "through it (highlighted). A central decoy (high C_B) only looks like one."
        )
        return [why], run_through(oracle, found[0].id)

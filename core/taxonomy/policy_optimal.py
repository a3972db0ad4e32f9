"""Is the policy's action optimal here? (preference query about a loaded policy π), yes/no.

Truth: regret(s) = V*(s) − Q*(s, π(s)) is zero (every action π may take here is in A*(s)).
Pool: decision states outside the goal whose actions do not all tie (otherwise every action is
optimal and the question answers itself). Balanced: as many yes- as no-cases. δ (ambiguity): a
no-case is hard when its regret is small (1 − regret); a yes-case is hard when an alternative
comes close (1 − the gap between V*(s) and the best Q* outside A*(s)).
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.policy.types import policy_chain
from explaincheck.core.taxonomy.base import PREFERENCE, Candidate, TestCase
from explaincheck.core.taxonomy.kinds import SingleStateCategory, YesNoCategory, number
from explaincheck.core.taxonomy.policy_kinds import (
    asked_chain,
    chain_of,
    choice_sentence,
    policy_preamble,
    policy_reason,
)
from explaincheck.core.taxonomy.sampling import delta, preference_pool


class PolicyOptimal(SingleStateCategory, YesNoCategory):
    id = "policy_optimal"
    about_a_policy = True
    dimension = PREFERENCE
    title = "Is the policy's action optimal?"
    label = "π opt."
    name = "policy action optimal"
    teachable = False

    def pool(self, oracle: OracleResult) -> list[StateFacts]:
        chain = policy_chain(oracle)
        if chain is None:
            return []
        return [
            s
            for s in preference_pool(oracle)
            if len(s.action_order) >= 2 and chain.state(s.id).action
        ]

    def not_applicable(self, oracle: OracleResult) -> str | None:
        chain = asked_chain(oracle)
        if chain is None:
            return policy_reason(oracle)
        pool = self.pool(oracle)
        if not pool:
            return "no decision state whose actions differ in value"
        if all(chain.state(s.id).optimal for s in pool):
            return "the policy is optimal in every candidate state (no no-case)"
        if not any(chain.state(s.id).optimal for s in pool):
            return "the policy is optimal in no candidate state (no yes-case)"
        return None

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        chain = asked_chain(oracle)
        if chain is None:
            return []
        return [
            Candidate(
                self.id,
                (s.id,),
                delta(self.state_delta(s, oracle)),
                chain.state(s.id).optimal,
            )
            for s in self.pool(oracle)
        ]

    def state_delta(self, state: StateFacts, oracle: OracleResult) -> float:
        mine = chain_of(oracle).state(state.id)
        if not mine.optimal:
            return 1.0 - mine.regret
        others = [q for a, q in state.q.items() if a not in state.best]
        return 1.0 - (state.value - max(others) if others else 1.0)

    def truth(self, case: TestCase, oracle: OracleResult) -> bool:
        return chain_of(oracle).state(case.states[0]).optimal

    def facts(self, case: TestCase, oracle: OracleResult) -> str:
        state = oracle.state(case.states[0])
        mine = chain_of(oracle).state(case.states[0])
        return (
            f"regret = V*(s) - Q*(s, pi(s)) = {number(mine.regret)};"
            f" A*(s) = {{{', '.join(state.best)}}}"
        )

    def _choice(self, case: TestCase, oracle: OracleResult) -> str:
        return f"{policy_preamble()} {choice_sentence(chain_of(oracle).state(case.states[0]))}"

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return (
            f"{self._choice(case, oracle)} An action is optimal if taking it here and acting as "
            "well as possible afterwards gives the highest probability of eventually reaching "
            "the goal. Is the policy's choice here optimal (every action it may take is optimal)?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        return (
            f"{self._choice(case, oracle)} Suppose the agent plays optimally after this step. "
            "Does the policy's choice here make reaching the goal as likely as the best action "
            "would?",
            f"{self._choice(case, oracle)} Could any other action here, followed by optimal "
            "play, give a strictly higher probability of reaching the goal? Answer yes if the "
            "policy's choice is optimal (no action is better), no otherwise.",
        )

"""Where does the policy lose more? (mode query about a loaded policy π): the higher regret.

regret(s) = V*(s) − Q*(s, π(s)): how much probability of reaching the goal π's choice gives up at
s against the best action, with optimal play afterwards in both. Pool: decision states outside
the goal. δ = 1 − |regret(K) − regret(L)| (ambiguity); pairs with equal regret (for instance two
states where π is optimal) are not generated.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.loading import needs_choice
from explaincheck.core.policy.types import PolicyState
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.kinds import pair_names
from explaincheck.core.taxonomy.policy_kinds import (
    PolicyKey,
    PolicyPairCategory,
    exact_or,
    pair_choices,
    policy_preamble,
)

DEFINITION = (
    "The loss of the policy's choice in a state is how much lower the probability of eventually "
    "reaching the goal is when the agent takes the policy's action there (and acts as well as "
    "possible afterwards) than when it takes the best action there (and acts as well as possible "
    "afterwards)."
)


class PolicyRegret(PolicyPairCategory):
    id = "policy_regret"
    about_a_policy = True
    title = "Where does the policy lose more?"
    label = "π regret"
    name = "policy loses more"
    symbol = "regret"

    def pool_state(self, state: PolicyState, oracle: OracleResult) -> bool:
        return needs_choice(oracle.state(state.id)) and bool(state.action)

    def key(self, state: PolicyState) -> PolicyKey:
        return exact_or(state.regret_exact, state.regret)

    def _choices(self, case: TestCase, oracle: OracleResult) -> str:
        return f"{policy_preamble()} {pair_choices(case, oracle)} {DEFINITION}"

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return (
            f"{self._choices(case, oracle)} In which of the two states, {pair_names(case)}, "
            "does the policy's choice lose more?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        return (
            f"{self._choices(case, oracle)} Which state, {pair_names(case)}, has the policy "
            "choice with the larger loss?",
            f"{self._choices(case, oracle)} Compare the policy's choices in {pair_names(case)}: "
            "where is it further from the best action?",
        )

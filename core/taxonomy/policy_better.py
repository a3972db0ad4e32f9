"""Which state is better for the policy? (mode query about a loaded policy π): the higher V^π.

δ = 1 − |V^π(K) − V^π(L)| (ambiguity). Pairs of non-goal states with equal V^π are not
generated. Prompts say what π does in both states.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult
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


class PolicyBetter(PolicyPairCategory):
    id = "policy_better"
    about_a_policy = True
    title = "Which state is better for the policy?"
    label = "π better"
    name = "better for policy"
    symbol = "V^pi"

    def pool_state(self, state: PolicyState, oracle: OracleResult) -> bool:
        return not oracle.state(state.id).is_goal

    def key(self, state: PolicyState) -> PolicyKey:
        return exact_or(state.value_exact, state.value)

    def _choices(self, case: TestCase, oracle: OracleResult) -> str:
        return f"{policy_preamble()} {pair_choices(case, oracle)}".strip()

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        return (
            f"{self._choices(case, oracle)} From which of the two states, {pair_names(case)}, "
            "is the goal more likely to be reached eventually if the agent follows this policy?"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, str]:
        return (
            f"{self._choices(case, oracle)} The agent starts either in state "
            f"{pair_names(case)} and then follows this policy. In which one is its chance of "
            "eventually reaching the goal higher?",
            f"{self._choices(case, oracle)} Compare the two states {pair_names(case)}: under "
            "this policy, which has the higher probability of eventually reaching the goal?",
        )

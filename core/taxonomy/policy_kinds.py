"""Shared pieces of the policy categories: the attached chain, the policy's choice in words, and
pairs compared by a quantity of the induced chain (docs/method.md, "Policy").

A policy category asks about a user's own policy π (``core/policy``), so it applies only to an
oracle that carries π's induced chain (``run --policy FILE``, the window's Open policy…), and it
is graded against that chain, never against the optimal behaviour alone. Prompts describe what
π does in the state(s) asked about: the LLM sees the choice it is asked to judge.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.policy.types import PolicyChain, PolicyState, describe_choice, policy_chain
from explaincheck.core.taxonomy.base import Candidate, TestCase
from explaincheck.core.taxonomy.kinds import PairCategory, number
from explaincheck.core.taxonomy.metamorphic import state_names
from explaincheck.core.taxonomy.runs import optimal_run
from explaincheck.core.taxonomy.sampling import delta, rng_for, untied_pairs

NO_POLICY = "no policy is loaded (run --policy FILE, or Open policy… in the window)"
TIE = 1e-9  # float chains: quantities closer than this count as tied

PolicyKey = Fraction | float


def asked_chain(oracle: OracleResult) -> PolicyChain | None:
    """The chain the policy questions ask about: the attached one, while the property is
    Pmax [F goal] (the questions say "the probability of reaching the goal"; under another
    property the chain still gives V^π and the value loss, ``core/policy/chain.py``)."""
    chain = policy_chain(oracle)
    return chain if chain is not None and oracle.prop.reaches_goal else None


def policy_reason(oracle: OracleResult) -> str:
    """Why the policy questions have no chain to ask about (``asked_chain`` is None)."""
    if policy_chain(oracle) is None:
        return NO_POLICY
    return (
        "the policy questions ask about the probability of reaching the goal; under"
        f" {oracle.prop.text} the policy's value and loss are computed, not asked about"
    )


def chain_of(oracle: OracleResult) -> PolicyChain:
    found = policy_chain(oracle)
    if found is None:
        raise ValueError(NO_POLICY)
    return found


def tied(a: PolicyKey, b: PolicyKey) -> bool:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    return abs(float(a) - float(b)) <= TIE


def choice_sentence(state: PolicyState, where: str = "this state") -> str:
    """What π does in one state, e.g. "In this state the policy takes the action up."."""
    if len(state.action) == 1:
        return f"In {where} the policy takes the action {describe_choice(state.action)}."
    return f"In {where} the policy chooses {describe_choice(state.action)}."


def policy_preamble() -> str:
    return (
        "The agent follows a fixed policy: in every state it picks its action by the same rule "
        "(possibly at random), whatever happened before."
    )


def pair_choices(case: TestCase, oracle: OracleResult) -> str:
    chain = chain_of(oracle)
    names = state_names(case, 2)
    return " ".join(
        choice_sentence(chain.state(s), f"state {name}")
        for name, s in zip(names, case.states, strict=True)
        if chain.state(s).action
    )


class PolicyPairCategory(PairCategory):
    """Which of two states has the higher (``higher_is_right``) chain quantity; tied pairs are
    not generated. δ = 1 − |difference| (ambiguity), as for the oracle's pair categories."""

    symbol: str
    higher_is_right = True
    teachable = False

    @abstractmethod
    def pool_state(self, state: PolicyState, oracle: OracleResult) -> bool:
        """Whether the state can be one of a pair."""

    @abstractmethod
    def key(self, state: PolicyState) -> PolicyKey:
        """The compared quantity (exact when the chain is exact)."""

    def not_applicable(self, oracle: OracleResult) -> str | None:
        chain = asked_chain(oracle)
        if chain is None:
            return policy_reason(oracle)
        pool = [s for s in chain.states if self.pool_state(s, oracle)]
        if len(pool) < 2:
            return "fewer than two states to compare"
        keys = [self.key(s) for s in pool]
        if all(tied(keys[0], k) for k in keys[1:]):
            return f"all candidate states have the same {self.symbol}"
        return None

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        chain = asked_chain(oracle)
        if chain is None:
            return []
        pool = [s for s in chain.states if self.pool_state(s, oracle)]
        key = {s.id: self.key(s) for s in pool}
        rng = rng_for(self.id, "candidates", seed)
        pairs = untied_pairs([s.id for s in pool], key, tied, rng)
        return [
            Candidate(self.id, p, delta(1.0 - abs(float(key[p[0]]) - float(key[p[1]]))))
            for p in pairs
        ]

    def right_index(self, case: TestCase, oracle: OracleResult) -> int:
        chain = chain_of(oracle)
        a, b = (self.key(chain.state(i)) for i in case.states)
        if tied(a, b):
            raise ValueError(f"tied pair {case.states} is no {self.id} case")
        return 0 if (a > b) == self.higher_is_right else 1

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> str:
        """The right state; a picture that sees the pair tied (a flawed explainer's, whose
        chain is solved in its own picture) answers the first, as for the oracle's pairs.
        The true chain never has tied cases: they are not generated."""
        chain = chain_of(oracle)
        a, b = (self.key(chain.state(i)) for i in case.states)
        if tied(a, b):
            return state_names(case, 2)[0]
        return super().oracle_answer(case, oracle)

    def facts(self, case: TestCase, oracle: OracleResult) -> str:
        chain = chain_of(oracle)
        first, second = state_names(case, 2)
        a, b = (chain.state(i) for i in case.states)
        return (
            f"{self.symbol}({first}) = {number(float(self.key(a)))}, "
            f"{self.symbol}({second}) = {number(float(self.key(b)))}"
        )

    def state_fact(self, oracle: OracleResult, state: StateFacts) -> str:
        return f"{self.symbol} = {number(float(self.key(chain_of(oracle).state(state.id))))}"

    def group_reasons(
        self, oracle: OracleResult, states: list[Any], names: tuple[str, ...]
    ) -> tuple[list[str], list[int]]:
        return [], optimal_run(oracle, states[0].id)


def exact_or(value: Fraction | None, fallback: float) -> PolicyKey:
    return value if value is not None else fallback


KeyOf = Callable[[PolicyState], PolicyKey]

"""Plain data of a user's policy and of the Markov chain it induces on the model.

A ``Policy`` is memoryless: per state id a distribution over that state's labelled actions
(deterministic policies put probability 1 on one action). ``PolicyChain`` holds what the
induced chain gives per state (V^π, D^π, Q^π, regret, expected visits and the reach-weighted
share of the value loss), and ``PolicyOracle`` is an oracle that carries one, which is what the
policy categories grade against (docs/method.md, "Policy").
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from explaincheck.core.oracle.types import OracleResult

UNIFORM, OPTIMAL = "uniform", "optimal"  # what ``--policy-default`` may fill a missing state with
DEFAULTS = (UNIFORM, OPTIMAL)


@dataclass(frozen=True)
class Policy:
    """A memoryless (possibly randomised) policy over one model's reachable states.

    ``choices[s]`` maps action -> probability (exact fractions, summing to 1) for every state
    with at least one labelled action outside the goal; ``defaulted`` lists the states whose
    distribution came from ``default`` because the source did not give one."""

    choices: dict[int, dict[str, Fraction]]
    source: str  # a file path, "callable" or "llm:SPEC"
    default: str = ""  # UNIFORM, OPTIMAL or "" (no default allowed)
    defaulted: tuple[int, ...] = ()

    def distribution(self, state: int) -> dict[str, Fraction]:
        return self.choices.get(state, {})

    def digest(self) -> str:
        """Identity of the choices (what a campaign with this policy is keyed by)."""
        data = {
            str(s): {a: str(p) for a, p in sorted(d.items())}
            for s, d in sorted(self.choices.items())
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def describe_choice(distribution: dict[str, Fraction]) -> str:
    """π(s) in words for prompts and tables: "up" or "up with probability 0.7, left with 0.3"."""
    if not distribution:
        return "(no choice)"
    if len(distribution) == 1:
        return next(iter(distribution))
    parts = [f"{a} with probability {float(p):.4g}" for a, p in distribution.items()]
    return ", ".join(parts)


def choice_text(distribution: dict[str, Fraction]) -> str:
    """π(s) in the table syntax: "up" or "up:0.7,left:0.3" (round-trips through ``loading``)."""
    if len(distribution) == 1:
        return next(iter(distribution))
    return ",".join(f"{a}:{p}" for a, p in distribution.items())


@dataclass(frozen=True)
class PolicyState:
    """What the induced chain says about one state. ``visits``: expected visits from s0 until
    the run ends in the goal or in a state from which π cannot reach it (for such a stranded
    state: the probability of ending there). ``share`` = visits × regret (stranded: visits ×
    V*(s)); the shares add up to the value loss exactly."""

    id: int
    action: dict[str, Fraction]  # π(s); empty where the state offers no decision
    value: float  # V^π(s) = P^π [F goal]
    danger: float | None  # D^π(s) = P^π [F unsafe]
    q: dict[str, float]  # Q^π(s, a): a once, then π
    optimal_value: float  # V*(s)
    regret: float  # V*(s) − Q*(s, π(s))
    visits: float
    share: float
    stranded: bool  # V^π(s) = 0 < V*(s) would be possible: π never reaches the goal from here
    defaulted: bool
    value_exact: Fraction | None = None
    danger_exact: Fraction | None = None
    regret_exact: Fraction | None = None
    share_exact: Fraction | None = None

    @property
    def optimal(self) -> bool:
        """π(s) puts all its weight on optimal actions (the regret is zero)."""
        if self.regret_exact is not None:
            return self.regret_exact == 0
        return self.regret <= 1e-9


@dataclass(frozen=True)
class PolicyChain:
    """The induced chain of one policy on one oracle, state by state."""

    policy: Policy
    states: tuple[PolicyState, ...]
    exact: bool
    residual: float  # largest |x − P^π x − b| of the solved equations (0 when exact)
    initial: int
    method: str  # in words, e.g. "exact rationals (Gaussian elimination on the induced chain)"
    direction: str = "max"  # the property's: a minimum's loss is V^π − V* (more time spent)

    def state(self, state_id: int) -> PolicyState:
        return self.states[state_id]

    @property
    def value_loss(self) -> float:
        """How much worse π does than the optimum from s0, in the property's units (≥ 0; ∞
        where π never surely reaches the target of an expected reward the optimum reaches)."""
        s0 = self.states[self.initial]
        if s0.value == s0.optimal_value:
            return 0.0
        if self.direction == "max":
            return s0.optimal_value - s0.value
        return s0.value - s0.optimal_value

    @property
    def value_loss_exact(self) -> Fraction | None:
        s0 = self.states[self.initial]
        if s0.value_exact is None or not self.exact:
            return None
        if s0.optimal_value == math.inf:
            return None
        return sum((s.share_exact or Fraction(0) for s in self.states), Fraction(0))

    def losing_most(self, count: int = 5) -> list[PolicyState]:
        """The states with the largest reach-weighted share of the loss, largest first."""
        ranked = sorted((s for s in self.states if s.share > 0), key=lambda s: -s.share)
        return ranked[:count]


@dataclass(frozen=True)
class PolicyOracle(OracleResult):
    """An oracle with a policy's induced chain attached (None: no policy loaded). Its model's
    ``content_hash`` includes the policy, so campaigns with another policy never resume into
    this one's rows."""

    policy: PolicyChain | None = field(default=None)
    base_hash: str = ""  # the model's content hash without the policy


def policy_chain(oracle: OracleResult) -> PolicyChain | None:
    """The induced chain attached to ``oracle``, if any."""
    return getattr(oracle, "policy", None)


def policy_hash(base: str, policy: Policy) -> str:
    """The model hash of a model (content hash ``base``) with ``policy`` attached: what the
    rows of questions about that policy carry."""
    return hashlib.sha256(f"{base}/{policy.digest()}".encode()).hexdigest()


def with_policy(oracle: OracleResult, chain: PolicyChain) -> PolicyOracle:
    """``oracle`` carrying ``chain`` (what categories attached kept; the model hash names the
    policy)."""
    names = OracleResult.__dataclass_fields__
    fields: dict[str, Any] = {name: getattr(oracle, name) for name in names}
    base = getattr(oracle, "base_hash", "") or oracle.model.content_hash
    fields["model"] = replace(oracle.model, content_hash=policy_hash(base, chain.policy))
    return PolicyOracle(**fields, policy=chain, base_hash=base)

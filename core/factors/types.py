"""Plain data of the factor machinery: declarations, per-state effects, the attached truth."""

from __future__ import annotations

from dataclasses import dataclass, field

from explaincheck.core.oracle.types import OracleResult

MODEL = "model"  # sets PRISM constants to a neutral value (a new model check)
STATE = "state"  # one state variable (alternatives are reachable states differing only there)


@dataclass(frozen=True)
class Factor:
    """One factor an explanation may cite. A model factor sets ``constants`` (name -> neutral
    value); a state factor names one state ``variable``. ``words`` is what the prompt calls it;
    ``neutral`` says in words what the intervened model is like (behavioural check)."""

    id: str
    words: str
    kind: str
    constants: dict[str, int | float | bool] = field(default_factory=dict)
    variable: str | None = None
    neutral: str = ""


@dataclass(frozen=True)
class FactorEffect:
    """The exact effect of one factor on the decision at one state (docs/method.md)."""

    factor: str
    necessary: bool  # under the intervention no factual best action is optimal any more
    strength: float  # |m(s) - m_f(s)|: how much the margin of the factual best group changes
    sufficient: bool  # keeping f and neutralising the other model factors: PS = 1
    best_after: tuple[str, ...]  # A*(s) under the intervention (strongest alternative for state)
    # graded necessity: how far the factual best action falls behind under the intervention
    # (max Q of the others − max Q of the factual group; > 0 iff necessary, 0 = a new tie)
    necessity: float = 0.0
    # graded sufficiency: the factual best action's lead when only f is kept (>= 0 iff
    # sufficient)
    sufficiency: float = 0.0
    changes_best: bool = False  # the second view: A*(s) as a set changes (a new tie counts)
    # seed 002's PS: the chance that the decision is kept when only f is kept, a uniform pick
    # among the optimal actions there: 1 if only factual best actions are optimal, a tie
    # with k optimal actions of which j factual gives j/k (every action at 0: at most 1/|tie|)
    ps: float = 1.0


@dataclass(frozen=True)
class StateFactors:
    """Every factor's effect at one state, plus the factual margin m(s)."""

    state: int
    margin: float
    effects: tuple[FactorEffect, ...]

    def effect(self, factor_id: str) -> FactorEffect:
        for found in self.effects:
            if found.factor == factor_id:
                return found
        raise KeyError(factor_id)

    def influence_order(self) -> tuple[str, ...]:
        """Factor ids, most influential first under necessity (the graded necessity, then
        declaration order): the order the oracle answerer cites, and the order the grading
        asks for (``taxonomy.factors.order_faults``: one scale, model and state factors
        alike; factors that tie may come in either order)."""
        position = {e.factor: i for i, e in enumerate(self.effects)}
        ranked = sorted(self.effects, key=lambda e: (-e.necessity, position[e.factor]))
        return tuple(e.factor for e in ranked)


@dataclass(frozen=True)
class FactorTruth:
    """The factors of one campaign and their effects at every state where they are defined.
        ``intervened`` maps an intervention name to the content hash of its oracle (kept with the
        campaign; the oracles themselves sit in the oracle cache). ``dropped`` says which factors
        were left out and why (an intervened model that does not build); ``unreachable`` how many
    decided states were left out because an intervention makes them unreachable."""

    factors: tuple[Factor, ...]
    states: dict[int, StateFactors]
    intervened: dict[str, str] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)
    # decided states left out because an intervened model does not reach them (counted, so a
    # report can say how many cases an intervention removed)
    unreachable: int = 0

    def factor(self, factor_id: str) -> Factor:
        for found in self.factors:
            if found.id == factor_id:
                return found
        raise KeyError(factor_id)


FACTOR_TRUTH = "factors"  # the name the factor truth is attached under (``attachments``)


def factor_truth(oracle: OracleResult) -> FactorTruth | None:
    """The factor truth attached to ``oracle``, if any."""
    found = oracle.attached(FACTOR_TRUTH)
    return found if isinstance(found, FactorTruth) else None


def with_factors(oracle: OracleResult, truth: FactorTruth) -> OracleResult:
    """``oracle`` carrying ``truth`` (same class, every other field and attachment unchanged)."""
    return oracle.attach(FACTOR_TRUTH, truth)

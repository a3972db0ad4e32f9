"""Whether a verdict holds for every value the oracle's intervals allow (issue 33.8).

Why one module: under the verified method every state carries a sound ``value_interval`` (and
``danger_interval``) around its float V (D), ``core/oracle/certificate.py``. A verdict read off
the float values may flip for another V inside them; such a verdict is ``uncertain``: stored, but
left out of every score (docs/method.md, "Uncertain verdicts"). The decision is made here for
every shape of category at once, so a category module never reads an interval:

- **best / worst action** (``ActionChoiceCategory``): the named action a passes iff
  Q(a) − Q(b) ≥ 0 (best; ≤ 0 for worst) for every other offered action b. Each difference is
  Σ_s' (p_a(s') − p_b(s')) · V(s'), bounded over the successors' V intervals as one linear form
  (a shared successor cancels, identical outcomes give exactly 0), in exact fractions of the
  floats so rounding never decides. Certain pass: every difference bounded on the right side of
  0; certain fail: one bounded on the wrong side; else uncertain.
- **ranking**: the same for every pair the answer puts in an order.
- **satisfy**: ``absolute`` passes iff |p − V| ≤ t, decided when the V interval lies inside
  [p − t, p + t] or outside it; ``half`` when the interval lies on one side of ½.
- **pairs** (``QuantityPairCategory``: more promising, safer): decided when the two states'
  intervals do not overlap.
- **policy optimal**: yes iff every action π takes is optimal, decided as for best action.

Everything else cannot say (graph facts such as bottlenecks and dead ends need no interval;
``factors`` and the other policy questions keep their verdicts): ``decide`` returns None there,
and under the exact method (no intervals) for every category.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.policy.types import policy_chain
from explaincheck.core.taxonomy.answers import YES
from explaincheck.core.taxonomy.base import (
    FAIL,
    PASS,
    UNCERTAIN,
    Category,
    Grade,
    GradingSettings,
    TestCase,
)
from explaincheck.core.taxonomy.kinds import ActionChoiceCategory, QuantityPairCategory
from explaincheck.core.taxonomy.metamorphic import state_names
from explaincheck.core.taxonomy.policy_optimal import PolicyOptimal
from explaincheck.core.taxonomy.ranking import Ranking
from explaincheck.core.taxonomy.satisfy import _EPSILON, HALF, Satisfy
from explaincheck.core.taxonomy.value_scale import scale_of

Interval = tuple[Fraction, Fraction]


@dataclass(frozen=True)
class Decision:
    """What the intervals decide: PASS, FAIL or UNCERTAIN, and the interval behind it."""

    verdict: str
    reason: str


def bounded(oracle: OracleResult) -> bool:
    """Whether ``oracle`` carries intervals (the verified method's ``bounded`` certificate)."""
    certificate = oracle.certificate
    return certificate is not None and certificate.kind == "bounded"


def respecting_intervals(
    grade: Grade,
    answer: Any,
    category: Category,
    case: TestCase,
    oracle: OracleResult,
    settings: GradingSettings,
) -> Grade:
    """``grade`` as the intervals allow: ``uncertain`` where its verdict could flip inside
    them, the intervals' verdict where they decide against the float one (a tie tolerance that
    joined two values the intervals separate), else ``grade`` itself."""
    if grade.verdict not in (PASS, FAIL) or not bounded(oracle):
        return grade
    decision = decide(category, answer, case, oracle, settings)
    if decision is None or decision.verdict == grade.verdict:
        return grade
    if decision.verdict == UNCERTAIN:
        return replace(grade, verdict=UNCERTAIN, reason=f"{grade.reason}; {decision.reason}")
    return replace(
        grade,
        verdict=decision.verdict,
        reason=f"{grade.reason}; the intervals decide {decision.verdict}: {decision.reason}",
    )


def decide(
    category: Category,
    answer: Any,
    case: TestCase,
    oracle: OracleResult,
    settings: GradingSettings,
) -> Decision | None:
    """The verdict every value inside the intervals gives ``answer`` (or UNCERTAIN), or None
    where this category cannot say (or the oracle has no intervals)."""
    if not bounded(oracle):
        return None

    # "better" is the higher Q under a maximising property, the lower under a minimising one
    upwards = oracle.prop.maximising
    if isinstance(category, ActionChoiceCategory):
        best = category.pick((True, False)) == upwards
        state = oracle.state(case.states[0])
        others = [b for b in category.listed_actions(case, oracle) if b != answer]
        pairs = [(answer, b) if best else (b, answer) for b in others]
        return _ordered(oracle, state, pairs)
    if isinstance(category, Ranking):
        state = oracle.state(case.states[0])
        order = list(answer)
        pairs = [(a, b) if upwards else (b, a) for i, a in enumerate(order) for b in order[i + 1 :]]
        return _ordered(oracle, state, pairs)
    if isinstance(category, Satisfy):
        return _satisfy(float(answer), oracle.state(case.states[0]), settings, oracle)
    if isinstance(category, QuantityPairCategory):
        return _pair(category, answer, case, oracle)
    if isinstance(category, PolicyOptimal):
        return _policy_optimal(answer, case, oracle)
    return None


def interval(state: StateFacts, quantity: str = "value") -> Interval | None:
    """The state's [lo, hi] of V ("value") or D ("danger") as exact fractions of the floats."""
    pair = state.value_interval if quantity == "value" else state.danger_interval
    if pair is None:
        return None
    return Fraction(pair[0]), Fraction(pair[1])


def q_difference(oracle: OracleResult, state: StateFacts, a: str, b: str) -> Interval | None:
    """Bounds on Q(s, a) − Q(s, b) = r(s, a) − r(s, b) + Σ_s' (p_a(s') − p_b(s')) · V(s') over
    the successors' V intervals (None: a successor without one, or an infinite value: its
    difference is no interval). The rewards are 0 under a probability property."""
    if any(math.isinf(q) for q in (state.q.get(a, 0.0), state.q.get(b, 0.0))):
        return None
    weight: defaultdict[int, Fraction] = defaultdict(Fraction)
    for target, p in state.successors.get(a, {}).items():
        weight[target] += Fraction(p)
    for target, p in state.successors.get(b, {}).items():
        weight[target] -= Fraction(p)
    low = high = Fraction(state.rewards.get(a, 0.0)) - Fraction(state.rewards.get(b, 0.0))
    for target, c in weight.items():
        if c == 0:
            continue
        bounds = interval(oracle.state(target))
        if bounds is None:
            return None
        lo, hi = bounds
        low, high = (low + c * lo, high + c * hi) if c > 0 else (low + c * hi, high + c * lo)
    return low, high


def _ordered(
    oracle: OracleResult, state: StateFacts, pairs: Iterable[tuple[str, str]]
) -> Decision | None:
    """Pass iff Q(a) ≥ Q(b) for every (a, b) of ``pairs``, decided over the intervals."""
    open_pairs = []
    for a, b in pairs:
        bounds = q_difference(oracle, state, a, b)
        if bounds is None:
            return None
        low, high = bounds
        if high < 0:
            return Decision(FAIL, f"Q({a}) < Q({b}) for every V in the intervals")
        if low < 0:
            open_pairs.append(f"Q({a}) - Q({b}) in [{float(low):.3g}, {float(high):.3g}]")
    if open_pairs:
        return Decision(UNCERTAIN, "within the oracle's intervals " + "; ".join(open_pairs))
    return Decision(PASS, "the order holds for every V in the intervals")


def _satisfy(
    p: float, state: StateFacts, settings: GradingSettings, oracle: OracleResult
) -> Decision | None:
    bounds = interval(state)
    if bounds is None:
        return None
    low, high = (float(x) for x in bounds)
    shown = f"V in [{low:.6g}, {high:.6g}]"
    if oracle.prop.is_reward:  # an expected reward is graded on its range (value_scale)
        scale = scale_of(oracle)
        p, low, high = ((x - scale.low) / scale.width for x in (p, low, high))
    if settings.satisfy_rule == HALF:
        if low >= 0.5 or high < 0.5:
            return Decision(PASS if (p >= 0.5) == (low >= 0.5) else FAIL, shown)
        return Decision(UNCERTAIN, f"{shown} straddles 1/2")
    tolerance = settings.satisfy_tolerance + _EPSILON
    if p - tolerance <= low and high <= p + tolerance:
        return Decision(PASS, shown)
    if high < p - tolerance or low > p + tolerance:
        return Decision(FAIL, shown)
    return Decision(
        UNCERTAIN, f"{shown}: |p - V| <= {settings.satisfy_tolerance:g} for some V only"
    )


def _pair(
    category: QuantityPairCategory, answer: Any, case: TestCase, oracle: OracleResult
) -> Decision | None:
    names = state_names(case, 2)
    if answer not in names:
        return None
    chosen = names.index(answer)
    mine, other = (
        interval(oracle.state(case.states[i]), category.quantity) for i in (chosen, 1 - chosen)
    )
    if mine is None or other is None:
        return None
    symbol = category.symbol
    shown = (
        f"{symbol}({names[chosen]}) in [{float(mine[0]):.6g}, {float(mine[1]):.6g}], "
        f"{symbol}({names[1 - chosen]}) in [{float(other[0]):.6g}, {float(other[1]):.6g}]"
    )
    above, below = mine[0] > other[1], mine[1] < other[0]
    if not (above or below):
        return Decision(UNCERTAIN, f"the intervals overlap: {shown}")
    return Decision(PASS if above == category.higher_wins(oracle) else FAIL, shown)


def _policy_optimal(answer: Any, case: TestCase, oracle: OracleResult) -> Decision | None:
    chain = policy_chain(oracle)
    if chain is None:
        return None
    state = oracle.state(case.states[0])
    taken = [a for a, weight in chain.state(state.id).action.items() if weight > 0]
    truths = []
    for a in taken:
        decision = _ordered(oracle, state, [(a, b) for b in state.actions if b != a])
        if decision is None:
            return None
        truths.append(decision)
    if any(d.verdict == FAIL for d in truths):
        truth: bool | None = False
    elif all(d.verdict == PASS for d in truths):
        truth = True
    else:
        truth = None
    if truth is None:
        reasons = "; ".join(d.reason for d in truths if d.verdict == UNCERTAIN)
        return Decision(UNCERTAIN, f"whether pi's action is optimal: {reasons}")
    return Decision(PASS if (answer == YES) == truth else FAIL, "decided over the intervals")

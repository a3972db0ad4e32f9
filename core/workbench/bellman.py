"""A state's Bellman equation with the numbers plugged in.

V(s) = max over actions a of Σ P(s' | s, a) · V(s'), and D(s) = min over a of Σ P(s' | s, a) ·
D(s'), written out term by term (under a reward property V(s) = min or max over a of r(s, a) + Σ
P(s' | s, a) · V(s'), the reward collected shown first): exact fractions where the oracle used
the Rational engine (≤ 1,000 states), floats otherwise. The optimising actions are the ones
whose sum equals the state's value (exactly, or within the oracle's tie tolerance).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.workbench.transitions import Number, Transitions

VALUE, DANGER = "V", "D"


@dataclass(frozen=True)
class Term:
    successor: int
    probability: Number
    value: Number  # V(s') or D(s')


@dataclass(frozen=True)
class ActionSum:
    action: str
    terms: tuple[Term, ...]
    total: Number
    optimal: bool  # attains the max (V) or min (D)
    # a reward property's V: what taking the action collects first (V = r + Σ p·V′); None: none
    reward: Number | None = None


@dataclass(frozen=True)
class BellmanView:
    state: int
    quantity: str  # VALUE or DANGER
    exact: bool
    value: Number
    sums: tuple[ActionSum, ...]  # empty for a state without labelled actions
    note: str  # why there is no equation (goal, unsafe, no action), else ""
    how: str = "max"  # the optimising direction: "max" or "min" (D, a minimised property)


def quantity_of(state: StateFacts, quantity: str, exact: bool) -> Number:
    """V(s) or D(s) of a state, as a Fraction when ``exact``."""
    text = state.value_exact if quantity == VALUE else state.danger_exact
    number = state.value if quantity == VALUE else state.danger
    if number is None:
        raise ValueError("the model has no unsafe label, so D is not defined")
    return Fraction(text) if exact and text is not None else number


def bellman_view(
    oracle: OracleResult, transitions: Transitions, state_id: int, quantity: str = VALUE
) -> BellmanView:
    """The equation of ``state_id`` for V (max) or D (min)."""
    exact = transitions.exact and oracle.tie_tolerance == 0
    state = oracle.state(state_id)
    value = quantity_of(state, quantity, exact)
    rewarded = quantity == VALUE and oracle.prop.is_reward
    how = "max" if quantity == VALUE and oracle.prop.maximising else "min"
    fixed = state.is_goal if quantity == VALUE else state.is_unsafe
    if fixed:
        word = "a goal state" if quantity == VALUE else "an unsafe state"
        at = number_text(value) if rewarded else "1"
        return BellmanView(state_id, quantity, exact, value, (), f"{word}: {quantity} = {at}", how)
    choices = transitions.labelled(state_id)
    if not choices:
        return BellmanView(
            state_id, quantity, exact, value, (), "no labelled action: the value of its loop", how
        )
    sums: list[tuple[str, tuple[Term, ...], Number, Number | None]] = []
    for action, probabilities in choices:
        terms = tuple(
            Term(t, p, quantity_of(oracle.state(t), quantity, exact))
            for t, p in sorted(probabilities.items())
        )
        reward = reward_of(state, action, exact) if rewarded else None
        start: Number = reward if reward is not None else (Fraction(0) if exact else 0.0)
        total: Number = sum((t.probability * t.value for t in terms), start)
        sums.append((action, terms, total, reward))
    totals = [total for _, _, total, _ in sums]
    best = max(totals) if how == "max" else min(totals)
    tolerance = max(oracle.tie_tolerance, 1e-12)

    def attains(total: Number) -> bool:
        return total == best if exact else abs(float(total) - float(best)) <= tolerance

    return BellmanView(
        state_id,
        quantity,
        exact,
        value,
        tuple(
            ActionSum(action, terms, total, attains(total), reward)
            for action, terms, total, reward in sums
        ),
        "",
        how,
    )


def reward_of(state: StateFacts, action: str, exact: bool) -> Number:
    """What taking ``action`` in ``state`` collects under a reward property (its state reward
    plus its action reward; 0 where the model gives none)."""
    text = state.rewards_exact.get(action)
    if exact and text is not None:
        return Fraction(text)
    number = state.rewards.get(action, 0.0)
    return Fraction(number) if exact else number


def number_text(number: Number) -> str:
    """A fraction as "16/17" (integers as "1"), a float to 6 significant digits."""
    if isinstance(number, Fraction):
        return str(number)
    if number == float("inf"):
        return "∞"
    return f"{number:.6g}"


def equation_lines(view: BellmanView) -> list[str]:
    """The view as plain text, one line per action, then the value (for handouts and tests)."""
    q = view.quantity
    how = view.how
    rewarded = any(line.reward is not None for line in view.sums)
    first = "r(s,a) + " if rewarded else ""
    head = f"{q}({view.state}) = {how} over actions of {first}Σ P(s'|s,a) · {q}(s')"
    if view.note:
        return [head, f"{q}({view.state}) = {number_text(view.value)} ({view.note})"]
    lines = [head]
    for line in view.sums:
        symbolic = " + ".join(
            f"{number_text(t.probability)}·{q}({t.successor})" for t in line.terms
        )
        plugged = " + ".join(
            f"{number_text(t.probability)}·{number_text(t.value)}" for t in line.terms
        )
        mark = f"   ◀ {how}" if line.optimal else ""
        if line.reward is not None:
            symbolic = f"r + {symbolic}"
            plugged = f"{number_text(line.reward)} + {plugged}"
        lines.append(f"{line.action}: {symbolic} = {plugged} = {number_text(line.total)}{mark}")
    lines.append(f"{q}({view.state}) = {number_text(view.value)}")
    return lines

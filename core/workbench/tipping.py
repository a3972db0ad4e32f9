"""Locate a tipping point of A*(s) between two sweep points as exactly as the model allows.

Storm's parametric engine (``storm.teaching.parametric_values``) gives V(s) when s takes the
left side's best action a, and when it takes the right side's b, every other state following
the left side's optimal policy, as rational functions of the constant; the tipping point is the
root of their difference in the interval, solved exactly with sympy (a rational root comes back
as a fraction). This is exact when the policy elsewhere stays optimal over the interval, which
the sweep's own points check at both ends. Where the engine does not apply (an integer constant,
a constant in a guard, a model over ``PARAMETRIC_STATES`` states, no root found) the interval is
bisected with further oracle runs and the result is marked "bisection".
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.isolated_call import call_isolated
from explaincheck.core.oracle.storm.teaching import parametric_values, without_constant
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.workbench.sweep import (
    BRACKET_WIDTH,
    MAX_BISECTIONS,
    StateKey,
    SweepPoint,
    SweepRange,
    TippingPoint,
    run_point,
)

PARAMETRIC_STATES = 200


def root_between(
    first: str, second: str, name: str, low: Fraction, high: Fraction
) -> Fraction | float | None:
    """The smallest root of ``first - second`` (Storm's rational-function texts) in
    [low, high]: a Fraction when rational, else a float; None when there is none."""
    import sympy

    symbol = sympy.Symbol(name)
    scope = {name: symbol}
    difference = sympy.together(
        sympy.sympify(first, locals=scope) - sympy.sympify(second, locals=scope)
    )
    numerator, _ = sympy.fraction(difference)
    if numerator.free_symbols - {symbol}:
        return None
    if not numerator.free_symbols:
        return None  # identical or never equal: no single tipping point
    roots = sympy.Poly(numerator, symbol).real_roots()
    inside = [
        r
        for r in roots
        if sympy.Rational(low.numerator, low.denominator)
        <= r
        <= sympy.Rational(high.numerator, high.denominator)
    ]
    if not inside:
        return None
    root = min(inside)
    if root.is_Rational:
        return Fraction(int(root.p), int(root.q))
    return float(root)


def _parametric(
    request: OracleRequest, name: str, change: TippingPoint, point: SweepPoint
) -> Fraction | float | None:
    """The root for ``change``, every other state following the left point's optimal policy."""
    left = point.oracle
    assert left is not None  # a point with its state in ``own_id`` has its oracle
    own = point.own_id[change.state]
    state = left.state(own)
    first = change.before[0]
    second = next((a for a in change.after if a not in change.before), change.after[0])
    policy = [s.optimal_action for s in left.states]
    policy[own] = state.optimal_action
    valuations = [dict(s.valuation) for s in left.states]
    texts = call_isolated(
        parametric_values,
        without_constant(request, name),
        name,
        valuations,
        policy,
        own,
        [first, second],
    )
    low, high = (Fraction(x) for x in change.between)
    return root_between(texts[first], texts[second], name, low, high)


def _bisect(
    request: OracleRequest,
    sweep: SweepRange,
    change: TippingPoint,
    reference: tuple[StateKey, ...] | None,
) -> TippingPoint:
    """Halve the interval with oracle runs until it is at most ``BRACKET_WIDTH`` wide (a whole
    number apart for an integer constant); the flip lies in the bracket, ``at`` is its middle."""
    low, high = change.between
    for _ in range(MAX_BISECTIONS):
        if not sweep.integer and high - low <= Decimal(BRACKET_WIDTH):
            break
        middle = (low + high) / 2
        if sweep.integer:
            middle = middle.to_integral_value()
            if middle in (low, high):
                break
        point = run_point(request, sweep.name, middle, [change.state], reference)
        if point.failed:
            break
        best = point.best[change.state]
        if best == change.before:
            low = middle
        elif best == change.after:
            high = middle
        elif set(best) >= set(change.before) | set(change.after):
            return replace(change, at=Fraction(middle), method="tie")
        else:
            break  # a third action wins in between: leave it to a finer sweep
    if sweep.integer:
        return change if high - low > 1 else replace(change, between=(low, high))
    bracket = (float(low), float(high))
    return replace(change, at=float((low + high) / 2), method="bisection", bracket=bracket)


def locate(
    request: OracleRequest,
    sweep: SweepRange,
    change: TippingPoint,
    notes: list[str],
    reference: tuple[StateKey, ...] | None = None,
) -> TippingPoint:
    """``change`` with ``at`` and ``method`` filled in where they can be; its state is named
    by ``reference`` (the sweep's first point; None: each point's own ids)."""
    if change.method is not None:
        return change
    at_an_end = _tie_at_an_end(request, sweep, change, reference)
    if at_an_end is not None:
        return at_an_end
    left = run_point(request, sweep.name, change.between[0], [], reference)
    if request.property is not None and not request.property.reaches_goal:
        notes.append(
            f"the parametric engine here solves Pmax [F goal], not {request.property.text}:"
            " tipping points bisected"
        )
    elif sweep.integer:
        notes.append("an integer constant has no parametric form: tipping points bisected")
    elif left.oracle is not None and len(left.oracle.states) > PARAMETRIC_STATES:
        notes.append(f"over {PARAMETRIC_STATES} states: tipping points bisected, not parametric")
    elif _comparable(change, left):
        try:
            at = _parametric(request, sweep.name, change, left)
        except ExplaincheckError as error:
            notes.append(f"the parametric engine does not apply: {error}")
        else:
            if at is not None:
                return replace(change, at=at, method="parametric")
            notes.append(
                f"no root of the parametric difference for state {change.state} in the "
                "interval (the policy elsewhere changes too): bisected"
            )
    return _bisect(request, sweep, change, reference)


def _tie_at_an_end(
    request: OracleRequest,
    sweep: SweepRange,
    change: TippingPoint,
    reference: tuple[StateKey, ...] | None,
) -> TippingPoint | None:
    """``change`` located at one of its own points, where that point's A* holds the other
    side's actions as well (a tie there, decided exactly) and the tie is over at once: one more
    point ``BRACKET_WIDTH`` inside the interval (a whole number for an integer) already has
    the other side's A*. A flip at a bound of the range (every move alike at slip = 0, issue
    50) is then that bound, once, rather than a bisection's 3.8e-7 beside it for some states
    and the parametric engine's 0 for others. None: no tie at either end, or it lasts."""
    before, after = set(change.before), set(change.after)
    low, high = change.between
    inward = Decimal(1) if sweep.integer else Decimal(str(BRACKET_WIDTH))
    if before > after:
        end, probe, expected = low, min(low + inward, high), change.after
    elif after > before:
        end, probe, expected = high, max(high - inward, low), change.before
    else:
        return None
    if probe not in (low, high):
        point = run_point(request, sweep.name, probe, [change.state], reference)
        if point.failed or point.best.get(change.state) != expected:
            return None
    return replace(change, at=Fraction(end), method="tie")


def _comparable(change: TippingPoint, left: SweepPoint) -> bool:
    """Whether the parametric engine can compare the two sides: both have an action, and the
    left point's oracle has the state (a state without actions on one side, e.g. one that a
    probability of 1 makes a goal, is bisected)."""
    return bool(change.before and change.after) and change.state in left.own_id

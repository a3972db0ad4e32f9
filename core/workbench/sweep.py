"""Sweep one constant over a range: V of the initial state and A* of every state at each point,
and the tipping points where A*(s) changes.

Each point is an ordinary oracle run (isolated child, cached on disk by content and constants);
a point that fails is kept as failed and the sweep goes on. A tipping point between two
neighbouring points is located exactly where it can be: a point whose A* ties the two sides
(the exact engine decides ties exactly) is the tipping point itself; otherwise Storm's
parametric engine gives V(s) under either action as rational functions of the constant and the
root of their difference is solved exactly (``tipping.py``); otherwise the interval is bisected
with more oracle runs, and the result says which method gave it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.constants_text import without_constant
from explaincheck.core.oracle.program import describe_program
from explaincheck.core.oracle.types import OracleRequest, OracleResult

MAX_POINTS = 1_000


BRACKET_WIDTH = 1e-6  # a bisected tipping point is bracketed at least this tightly
MAX_BISECTIONS = 60  # oracle runs per tipping point at most, whatever the interval


@dataclass(frozen=True)
class SweepRange:
    name: str
    values: tuple[Decimal, ...]
    declared: str | None = None  # the constant's type in the model ("int", "double", "bool")

    @property
    def integer(self) -> bool:
        """Whether the constant takes whole numbers only: the model's type decides (a double
        swept over -5:5:1 is still a double); the grid only when the type is unknown."""
        if self.declared is not None:
            return self.declared == "int"
        return all(v == v.to_integral_value() for v in self.values) and all(
            "." not in str(v) for v in self.values
        )


def with_declared_type(request: OracleRequest, sweep: SweepRange) -> SweepRange:
    """``sweep`` with the type the model declares for its constant (unknown: as it was)."""
    try:
        constants = describe_program(request.model_path).constants
    except ExplaincheckError:
        return sweep  # the points will say what is wrong with the model
    found = next((c.type for c in constants if c.name == sweep.name), None)
    return replace(sweep, declared=found)


def parse_range(text: str) -> SweepRange:
    """``NAME=LO:HI:STEP`` -> the points LO, LO+STEP, … ≤ HI, in exact decimals."""
    name, sep, spec = text.partition("=")
    parts = spec.split(":")
    if not sep or not name.strip() or len(parts) != 3:
        raise ExplaincheckError(
            f"bad sweep {text!r}: expected NAME=LO:HI:STEP, e.g. p=0.1:0.9:0.05"
        )
    try:
        low, high, step = (Decimal(p.strip()) for p in parts)
    except InvalidOperation:
        raise ExplaincheckError(f"bad sweep {text!r}: LO, HI and STEP must be numbers") from None
    if not all(x.is_finite() for x in (low, high, step)):  # nan, inf: no grid to walk
        raise ExplaincheckError(f"bad sweep {text!r}: LO, HI and STEP must be finite numbers")
    if step <= 0 or high < low:
        raise ExplaincheckError(f"bad sweep {text!r}: need STEP > 0 and LO ≤ HI")
    count = int((high - low) / step) + 1
    if count > MAX_POINTS:
        raise ExplaincheckError(f"bad sweep {text!r}: {count} points, at most {MAX_POINTS}")
    return SweepRange(name.strip(), tuple(low + i * step for i in range(count)))


@dataclass(frozen=True)
class SweepPoint:
    value: Decimal
    v_initial: float | None
    v_exact: str | None  # "num/den" under the exact engine
    best: dict[int, tuple[str, ...]]  # A*(s) of the chosen states
    values: dict[int, float]  # V(s) of the chosen states
    error: str | None = None  # why this point failed
    oracle: OracleResult | None = field(default=None, compare=False, repr=False)
    # the sweep's state id -> this point's own state id (Storm numbers states in exploration
    # order, which a probability of 0 or 1 changes: the same id can name another valuation)
    own_id: dict[int, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass(frozen=True)
class TippingPoint:
    state: int
    between: tuple[Decimal, Decimal]
    before: tuple[str, ...]  # A* on the left
    after: tuple[str, ...]  # A* on the right
    at: Fraction | float | None
    method: str | None  # "tie", "parametric", "bisection" or None (not located)
    # bisection: the interval of width <= BRACKET_WIDTH that holds the flip (``at`` its middle)
    bracket: tuple[float, float] | None = None


@dataclass(frozen=True)
class Sweep:
    constant: str
    points: tuple[SweepPoint, ...]
    tipping_points: tuple[TippingPoint, ...]
    states: tuple[int, ...] | None  # the states asked about (None: all)
    notes: tuple[str, ...] = ()  # e.g. why the parametric engine did not apply
    initial: int | None = None  # the initial state's id, in the ids the sweep names states by
    bounds: tuple[Decimal, Decimal] | None = None  # the swept range

    def at_bound(self, tip: TippingPoint) -> bool:
        """Whether ``tip`` lies at a bound of the swept range (often a tie the bound makes:
        every move alike at slip = 0)."""
        if self.bounds is None or tip.at is None:
            return False
        return Fraction(tip.at) in (Fraction(self.bounds[0]), Fraction(self.bounds[1]))

    @property
    def flipping(self) -> tuple[int, ...]:
        """The states whose best action flips: those with a flip inside the range first, then
        by state id; each once."""
        states = {tip.state for tip in self.tipping_points}
        interior = {tip.state for tip in self.tipping_points if not self.at_bound(tip)}
        return tuple(sorted(states, key=lambda s: (s not in interior, s)))


def constants_with(base: str, name: str, value: Decimal) -> str:
    kept = without_constant(base, name)
    return f"{kept},{name}={value}" if kept else f"{name}={value}"


StateKey = tuple[tuple[str, int | bool | float], ...]  # a state's valuation, in model order


def state_keys(oracle: OracleResult) -> tuple[StateKey, ...]:
    """Each state's valuation as a key, by the oracle's state id."""
    return tuple(tuple(s.valuation.items()) for s in oracle.states)


def run_point(
    request: OracleRequest,
    name: str,
    value: Decimal,
    states: Iterable[int] | None,
    reference: tuple[StateKey, ...] | None = None,
) -> SweepPoint:
    """One oracle run at ``name = value`` (a failure becomes a failed point). Its states are
    named by ``reference``'s ids (the sweep's first point), matched by valuation; a state not
    reachable here is left out of the point (asked for by id: the point fails)."""
    try:
        oracle = compute_oracle(
            replace(request, constants=constants_with(request.constants, name, value))
        )
    except ExplaincheckError as error:
        return SweepPoint(value, None, None, {}, {}, str(error))
    own = state_keys(oracle)
    keys = reference if reference is not None else own
    where = {key: i for i, key in enumerate(own)}
    own_id = {s: where[key] for s, key in enumerate(keys) if key in where}
    chosen = range(len(keys)) if states is None else list(states)
    missing = [s for s in chosen if s not in own_id and (states is not None or s >= len(keys))]
    if missing:
        return SweepPoint(value, None, None, {}, {}, f"no state {missing[0]} at {name}={value}")
    present = [s for s in chosen if s in own_id]
    initial = oracle.initial
    return SweepPoint(
        value,
        initial.value,
        initial.value_exact,
        {s: oracle.state(own_id[s]).best for s in present},
        {s: oracle.state(own_id[s]).value for s in present},
        None,
        oracle,
        own_id,
    )


Progress = Callable[[int, int, SweepPoint], None]  # (done, total, the point just computed)


def find_changes(points: list[SweepPoint]) -> list[TippingPoint]:
    """Where A*(s) differs between neighbouring successful points; a point whose A* is the
    union of both sides' (an exact tie there) is itself the tipping point."""
    good = [p for p in points if not p.failed]
    found: list[TippingPoint] = []
    states = sorted({s for p in good for s in p.best})
    for state in states:
        series = [(p.value, p.best.get(state, ())) for p in good if state in p.best]
        i = 0
        while i + 1 < len(series):
            (x0, b0), (x1, b1) = series[i], series[i + 1]
            if b0 == b1:
                i += 1
                continue
            if i + 2 < len(series):
                x2, b2 = series[i + 2]
                if b2 != b1 and set(b1) == set(b0) | set(b2) and b0 != b2:
                    found.append(TippingPoint(state, (x0, x2), b0, b2, Fraction(x1), "tie"))
                    i += 2
                    continue
            found.append(TippingPoint(state, (x0, x1), b0, b1, None, None))
            i += 1
    return found

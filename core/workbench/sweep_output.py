"""A sweep as the ``sweep --json`` contract, as a text table, and as a figure (pyplot-free)."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

from matplotlib.figure import Figure

from explaincheck.core.plural import counted
from explaincheck.core.taxonomy.property_units import PropertyUnits, units_of
from explaincheck.core.workbench.sweep import Sweep, TippingPoint


def _number(value: Decimal) -> int | float:
    return (
        int(value) if value == value.to_integral_value() and "." not in str(value) else float(value)
    )


def _at(tip: TippingPoint) -> float | None:
    return None if tip.at is None else float(tip.at)


def to_json(sweep: Sweep) -> dict[str, Any]:
    """``{"points": [{"value", "V_initial", "best"}…], "tipping_points": [{"state", "between",
    "at"}…]}`` plus, beside the contract, ``error`` of a failed point, the exact ``at`` as a
    fraction and the ``method`` that located it."""
    points = []
    for point in sweep.points:
        entry: dict[str, Any] = {
            "value": _number(point.value),
            "V_initial": point.v_initial,
            "best": {str(s): list(b) for s, b in point.best.items()},
        }
        if point.v_exact is not None:
            entry["V_initial_exact"] = point.v_exact
        if point.error is not None:
            entry["error"] = point.error
        points.append(entry)
    tips = []
    for tip in sweep.tipping_points:
        entry = {
            "state": tip.state,
            "between": [_number(tip.between[0]), _number(tip.between[1])],
            "at": _at(tip),
            "before": list(tip.before),
            "after": list(tip.after),
            "method": tip.method,
        }
        if isinstance(tip.at, Fraction):
            entry["at_exact"] = str(tip.at)
        if tip.bracket is not None:  # bisection: the flip lies within, at most 1e-6 wide
            entry["bracket"] = list(tip.bracket)
            entry["bracket_width"] = tip.bracket[1] - tip.bracket[0]
        tips.append(entry)
    return {
        "constant": sweep.constant,
        "points": points,
        "tipping_points": tips,
        "notes": list(sweep.notes),
    }


def render_table(sweep: Sweep, states: tuple[int, ...] = ()) -> str:
    """The points (value, V of the initial state, A* of up to three chosen states) and then
    the tipping points, as aligned plain text."""
    shown = states[:3]
    head = [sweep.constant, "V(initial)", *(f"A*({s})" for s in shown)]
    rows = []
    for point in sweep.points:
        if point.failed:
            rows.append([str(point.value), "failed", point.error or ""])
            continue
        value = (
            point.v_exact if point.v_exact and "/" in point.v_exact else f"{point.v_initial:.6g}"
        )
        rows.append([str(point.value), value, *(",".join(point.best.get(s, ())) for s in shown)])
    widths = [max(len(r[i]) for r in [head, *rows] if i < len(r)) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths, strict=True)).rstrip()]
    for row in rows:
        cells = [c.ljust(widths[i]) if i < len(widths) - 1 else c for i, c in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    if not sweep.tipping_points:
        lines.append("no tipping points: A* is the same at every point")
    # the flips inside the range first: those at a bound are most often ties the bound makes
    ordered = sorted(sweep.tipping_points, key=sweep.at_bound)
    for tip in ordered:
        where = "not located" if tip.at is None else f"at {tip.at} ({tip.method})"
        if isinstance(tip.at, Fraction) and tip.at.denominator != 1:
            where = f"at {tip.at} = {float(tip.at):.6g} ({tip.method})"
        if tip.bracket is not None:
            low, high = tip.bracket
            where = (
                f"at {tip.at:.9g} ({tip.method}: within [{low:.9g}, {high:.9g}],"
                f" width {high - low:.1e})"
            )
        lines.append(
            f"state {tip.state}: A* {','.join(tip.before)} -> {','.join(tip.after)} between "
            f"{tip.between[0]} and {tip.between[1]}, {where}"
        )
    lines += [f"note: {note}" for note in sweep.notes]
    return "\n".join(lines)


def sweep_units(sweep: Sweep) -> PropertyUnits | None:
    """The units of the property the sweep's oracles were computed for (None: no point was)."""
    oracle = next((p.oracle for p in sweep.points if p.oracle is not None), None)
    return units_of(oracle) if oracle is not None else None


def _plotted(value: float | None) -> float:
    """V as a point of the plot: ∞ (an expected reward never reached for sure) as a gap."""
    if value is None:
        return 0.0
    return math.nan if math.isinf(value) else float(value)


def sweep_figure(sweep: Sweep, states: tuple[int, ...] = (), text_scale: float = 1.0) -> Figure:
    """V(initial) (and V of the chosen states, the initial one drawn once) against the
    constant; dashed lines where A* changes, crosses on the axis for failed points.
    ``text_scale`` enlarges every text (the GUI's presentation size)."""
    size = 10 * text_scale
    figure = Figure(figsize=(7.5, 4.2), layout="constrained")
    axes = figure.add_subplot()
    good = [p for p in sweep.points if not p.failed]
    xs = [float(p.value) for p in good]
    first = "V(initial)" if sweep.initial is None else f"V(initial) = V({sweep.initial})"
    axes.plot(xs, [_plotted(p.v_initial) for p in good], marker="o", label=first)
    for state in [s for s in states if s != sweep.initial][:4]:
        axes.plot(
            [float(p.value) for p in good if state in p.values],
            [_plotted(p.values[state]) for p in good if state in p.values],
            marker=".",
            label=f"V({state})",
        )
    failed = [float(p.value) for p in sweep.points if p.failed]
    if failed:
        axes.plot(failed, [0.0] * len(failed), "x", color="#c0392b", label="failed point")
    for x, tips in _tips_by_place(sweep).items():
        axes.axvline(x, color="#888888", linestyle="--", linewidth=1)
        axes.annotate(  # one label per line: nine flips at a bound were nine labels on top
            _tip_label(tips),  # of one another
            (x, 1.0),
            xycoords=("data", "axes fraction"),
            rotation=90,
            va="top",
            ha="right",
            fontsize=0.8 * size,
        )
    axes.set_xlabel(sweep.constant, fontsize=size)
    units = sweep_units(sweep)
    if units is None or units.legacy:
        axes.set_ylabel("V = Pmax[F goal]", fontsize=size)
    else:  # the property's V, its unit (∞ is left out of the plot: the table names it)
        axes.set_ylabel(f"V = {units.symbol}\n{units.unit}", fontsize=size)
    axes.tick_params(labelsize=0.9 * size)
    if units is None or not units.is_reward:
        axes.set_ylim(-0.05, 1.05)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right", fontsize=0.8 * size)
    return figure


def _tips_by_place(sweep: Sweep) -> dict[float, list[TippingPoint]]:
    """The tipping points grouped by where their dashed line is drawn."""
    places: dict[float, list[TippingPoint]] = {}
    for tip in sweep.tipping_points:
        x = float(tip.at) if tip.at is not None else float(sum(tip.between) / 2)
        places.setdefault(x, []).append(tip)
    return places


def _tip_label(tips: list[TippingPoint]) -> str:
    """``A*(8): right`` for one flip at a place; ``A* of 4 states: 1, 2, 3, 5`` for more."""
    if len(tips) == 1:
        return f"A*({tips[0].state}): {','.join(tips[0].after)}"
    states = sorted({tip.state for tip in tips})
    shown = ", ".join(str(s) for s in states[:4]) + (", …" if len(states) > 4 else "")
    return f"A* of {counted(len(states), 'state')}: {shown}"

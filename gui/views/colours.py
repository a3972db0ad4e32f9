"""Colour scales and mark colours shared by the graph, its legend and the state inspector.

Viridis for V (probability of reaching the goal: dark = hopeless, yellow = sure) and a
yellow-to-red scale for D (danger), sampled at a few stops so no matplotlib import is needed.
Mark colours follow the Okabe-Ito palette, which stays distinguishable for colour-blind users.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

_VIRIDIS = ("#440154", "#3b528b", "#21918c", "#5ec962", "#fde725")
_DANGER = ("#fff7bc", "#fec44f", "#fe9929", "#d95f0e", "#8c2d04")

INITIAL = QColor("#0072B2")
GOAL = QColor("#009E73")
UNSAFE = QColor("#D55E00")
BOTTLENECK = QColor("#E69F00")
DEAD_END = QColor("#222222")
OPTIMAL = QColor("#0072B2")
EDGE = QColor("#9a9a9a")
HIGHLIGHT = QColor("#CC79A7")
PATH = QColor("#2b2b2b")
SELECTED = QColor("#56B4E9")
NEUTRAL_FILL = QColor("#d9d9d9")
BEST = QColor("#009E73")
WORST = QColor("#D55E00")
# V = ∞ (an expected reward whose target is not reached for sure): off the viridis scale
INFINITE = QColor("#9e9e9e")


def _interpolate(stops: tuple[str, ...], t: float) -> QColor:
    t = min(1.0, max(0.0, t))
    scaled = t * (len(stops) - 1)
    i = min(int(scaled), len(stops) - 2)
    f = scaled - i
    a, b = QColor(stops[i]), QColor(stops[i + 1])
    return QColor(
        round(a.red() + (b.red() - a.red()) * f),
        round(a.green() + (b.green() - a.green()) * f),
        round(a.blue() + (b.blue() - a.blue()) * f),
    )


def value_colour(v: float) -> QColor:
    return _interpolate(_VIRIDIS, v)


def danger_colour(d: float) -> QColor:
    return _interpolate(_DANGER, d)


def scale_stops(kind: str) -> tuple[str, ...]:
    return _VIRIDIS if kind == "value" else _DANGER


def text_on(fill: QColor) -> QColor:
    """Black or white, whichever reads better on ``fill``."""
    luminance = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue()
    return QColor("#000000") if luminance > 140 else QColor("#ffffff")

"""How the Campaign tab shows each category on the open model, as plain data.

Qt-free so the rules can be tested without a tree widget: a category that does not apply is
greyed out with its reason; one asked only on request that offers itself here
(``Category.offer``, e.g. ``factors`` on a model with enough factors) is offered with its cost;
one that repeats another here is left out unless asked for; one whose cases decide nothing is
marked but kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import Any

DEGENERATE_MARK = "⚠ "  # before a category that measures nothing on this model


@dataclass(frozen=True)
class CategoryMark:
    text: str
    tip: str
    enabled: bool
    ticked: bool


def base_title(text: str) -> str:
    """The category's own title, without what an earlier model added to it."""
    return text.split("  —")[0].removeprefix(DEGENERATE_MARK)


def category_mark(
    category_id: str,
    base: str,
    applies: Any,
    offer: Any,
    idle: Mapping[str, str],
    wanted: Set[str] | None,
) -> CategoryMark:
    """``applies``: its applicability (``reason``, ``caveat``); ``offer``: how this category is
    offered on request here (a ``RequestOffer``; None: none); ``idle``: why categories measure
    nothing; ``wanted``: the user's ticks (None: not chosen yet, so everything that applies)."""
    asked = wanted is not None and category_id in wanted
    kept = wanted is None or category_id in wanted
    if applies.reason and offer is not None:  # missing only until asked for: say its cost
        return CategoryMark(f"{base}  — {offer.label}", offer.tooltip, True, asked)
    if applies.reason:
        return CategoryMark(f"{base}  — not applicable", applies.reason, False, False)
    if applies.caveat:
        tip = f"Left out by default: {applies.caveat}. Tick it to ask anyway."
        return CategoryMark(f"{base}  — repeats another category here", tip, True, asked)
    if category_id in idle:
        tip = f"Runs, but its cases decide nothing: {idle[category_id]}."
        return CategoryMark(f"{DEGENERATE_MARK}{base}  — measures nothing here", tip, True, kept)
    return CategoryMark(base, base, True, kept)

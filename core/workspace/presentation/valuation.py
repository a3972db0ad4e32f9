"""A state's valuation in the environment's own order and names ("row (r) = 3, column (c) = 2").

Storm lists variables in its own order (often alphabetical), which reads backwards next to the
environment's words ("row 3, column 2"). An environment may name its variables in order
(``[variables]`` in ``environment.toml``); unnamed variables follow in Storm's order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def ordered_items(
    valuation: Mapping[str, Any], names: Mapping[str, str] | None = None
) -> list[tuple[str, str, Any]]:
    """(variable, name for people, value), named variables first in the environment's order."""
    names = names or {}
    named = [v for v in names if v in valuation]
    rest = [v for v in valuation if v not in names]
    return [(v, names.get(v, v), valuation[v]) for v in named + rest]


def valuation_text(
    valuation: Mapping[str, Any], names: Mapping[str, str] | None = None, sep: str = " = "
) -> str:
    """``row (r) = 3, column (c) = 2`` (or ``x = 1`` for a variable without a name)."""
    parts = []
    for variable, name, value in ordered_items(valuation, names):
        label = variable if name == variable else f"{name} ({variable})"
        parts.append(f"{label}{sep}{value}")
    return ", ".join(parts)

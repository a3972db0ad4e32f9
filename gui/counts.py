"""Counts in words: "1 bottleneck", "2 bottlenecks", "1 dead end" (never "1 bottlenecks")."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, the plural (``noun + "s"`` unless given) for any other than 1."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"

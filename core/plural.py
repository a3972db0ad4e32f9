"""Counts in words: "1 bottleneck", "2 bottlenecks", "1 dead end", "0 executions".

Why one helper: every front end prints counts, and "1 bottlenecks" slipped through wherever a
plural was written by hand.
"""

from __future__ import annotations

IRREGULAR = {"LLM": "LLMs", "repeat": "repeats", "dead end": "dead ends"}


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, the noun in the plural unless the number is one."""
    return f"{number:,} {noun if number == 1 else plural or plural_of(noun)}"


def plural_of(noun: str) -> str:
    if noun in IRREGULAR:
        return IRREGULAR[noun]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"

"""The range a sweep offers first for a constant: its whole admissible range where the model
says what that is (issue 50, point 9: a slip probability was offered 0.1 to 0.9 and the flip
at 0.0975 was never seen).

How "probability" is recognised: a ``double`` constant that appears in the probability of an
update — the expression before ``:`` in ``guard -> p : (x'=1) + (1-p) : (x'=2)``, read from
Storm's own text of each command (``describe_program``) — is a probability, and a probability
ranges over 0 to 1. Points where the model does not build (``1/p`` at p = 0, a sum over 1) are
kept as failed points, so the whole range can be offered without knowing every expression's
bounds. Another ``double`` (in a guard, a reward, an initial value) gets 0 to 1 as well, said
to be a guess; an ``int`` gets 1 to 10 in whole steps (a size, a count).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explaincheck.core.oracle.program import ProgramCommand, ProgramDescription

PROBABILITY_STEP = "0.05"  # 21 points from 0 to 1


@dataclass(frozen=True)
class OfferedRange:
    """``low``, ``high`` and ``step`` as the sweep fields show them, and why, in words."""

    low: str
    high: str
    step: str
    why: str
    probability: bool = False  # recognised as a probability: the page offers it first


def _top_level(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` where no bracket is open."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        char = text[i]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i])
            i += len(separator)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


def update_probabilities(command: ProgramCommand) -> list[str]:
    """The probability expression of each update of ``command`` ("1" for a sure update)."""
    text = command.text
    arrow = _top_level(text, "->")
    if len(arrow) < 2:
        return []
    updates = "->".join(arrow[1:])
    found = []
    for update in _top_level(updates, " + "):
        parts = _top_level(update, " : ")
        found.append(parts[0].strip() if len(parts) > 1 else "1")
    return found


def appears_in_probability(program: ProgramDescription, name: str) -> str | None:
    """The first update probability that names the constant ``name`` (None: none does)."""
    word = re.compile(rf"(?<![\w.']){re.escape(name)}(?![\w'])")
    for command in program.commands:
        for probability in update_probabilities(command):
            if word.search(probability):
                return probability
    return None


def offered_range(program: ProgramDescription | None, name: str) -> OfferedRange:
    """What the sweep page offers for the undefined constant ``name`` of ``program``."""
    declared = None
    if program is not None:
        declared = next((c.type for c in program.constants if c.name == name), None)
    if declared == "int":
        return OfferedRange("1", "10", "1", f"{name} is an integer: whole numbers 1 to 10")
    probability = appears_in_probability(program, name) if program is not None else None
    if probability is not None:
        return OfferedRange(
            "0",
            "1",
            PROBABILITY_STEP,
            f"{name} is a probability (it appears in an update's probability, {probability}):"
            " its whole range, 0 to 1",
            probability=True,
        )
    return OfferedRange(
        "0",
        "1",
        PROBABILITY_STEP,
        f"{name} appears in no update's probability: 0 to 1 is a guess, set the range",
    )

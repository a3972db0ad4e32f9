"""Capping what a text widget is given, so a huge LLM reply cannot freeze the window.

Qt lays out a plain-text widget's lines in full; a 2 MB reply on one line takes minutes. The
views show at most ``SHOWN_CHARS`` characters, with lines longer than ``LINE_CHARS`` elided in
the middle, and offer the full text on request (a dialog that breaks it into short lines, or a
file).
"""

from __future__ import annotations

from dataclasses import dataclass

SHOWN_CHARS = 20_000
LINE_CHARS = 2_000


@dataclass(frozen=True)
class Capped:
    """The text to show, and whether something was left out."""

    text: str
    shortened: bool
    full_length: int


def capped(
    text: str, limit: int = SHOWN_CHARS, line_limit: int = LINE_CHARS, hint: str = ""
) -> Capped:
    """``text`` with long lines elided in the middle and at most about ``limit`` characters
    (plus a note saying how much is shown, and ``hint`` on how to see the rest)."""
    if len(text) <= limit and all(len(line) <= line_limit for line in text.split("\n")):
        return Capped(text, False, len(text))
    head = line_limit // 2
    lines = []
    size = 0
    for line in text[: limit * 4].split("\n"):
        if len(line) > line_limit:
            left = len(line) - 2 * head
            line = f"{line[:head]} … [{left:,} characters left out] … {line[-head:]}"
        lines.append(line)
        size += len(line) + 1
        if size >= limit:
            break
    shown = "\n".join(lines)[:limit]
    note = f"\n\n[shown {len(shown):,} of {len(text):,} characters{': ' + hint if hint else ''}]"
    return Capped(shown + note, True, len(text))


def broken_lines(text: str, width: int = 1_000) -> str:
    """The full text with hard breaks every ``width`` characters of a line (cheap to lay out)."""
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
        else:
            out.extend(line[i : i + width] for i in range(0, len(line), width))
    return "\n".join(out)

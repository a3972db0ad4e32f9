"""A model's error as the window shows it: one message that says the position once, in words,
and the offending source line cut around the column with a caret under it.

Qt-free (tests call it on plain exceptions); the model panel and the canvas overlay show it.
"""

from __future__ import annotations

import re
from pathlib import Path

from explaincheck.core.errors import ExplaincheckError

_POSITION = re.compile(r"(?:\bat |:)(\d+):(\d+)\b")
EXCERPT_WIDTH = 72  # characters of a source line shown around the error's column
_LEADING_POSITION = re.compile(r"^(?P<file>[^\n]*?):(?P<line>\d+):(?P<column>\d+):\s*")


def error_text(error: BaseException, model_path: str | None = None) -> tuple[str, str]:
    """(message, source excerpt) for an error; the excerpt points at line/column if known.

    The position is said once, in words ("broken.prism, line 5, column 20: …"), even when the
    parser's message starts with ``path:line:column:``."""
    message = str(error) or type(error).__name__
    line = getattr(error, "line", None)
    column = getattr(error, "column", None)
    leading = _LEADING_POSITION.match(message)
    if leading and (line is None or int(leading.group("line")) == line):
        line, column = int(leading.group("line")), int(leading.group("column"))
        name = Path(leading.group("file")).name
        message = message[leading.end() :]
        where = f"line {line}, column {column}"
        message = f"{name}, {where}: {message}" if name else f"{where}: {message}"
    else:
        if line is None:  # some parser messages carry the position only in the text ("at 5:25")
            found = _POSITION.search(message)
            if found:
                line, column = int(found.group(1)), int(found.group(2))
        if line is not None:
            where = f"line {line}" + (f", column {column}" if column is not None else "")
            if where not in message and not _POSITION.search(message):
                message = f"{where}: {message}"
    if not isinstance(error, ExplaincheckError):
        message = f"unexpected problem ({type(error).__name__}): {message}"
    excerpt = ""
    if line is not None and model_path:
        try:
            lines = Path(model_path).read_text(errors="replace").splitlines()
        except OSError:
            lines = []
        if 1 <= line <= len(lines):
            excerpt = source_excerpt(lines[line - 1], line, column)
    return message, excerpt


def source_excerpt(text: str, line: int, column: int | None, width: int = EXCERPT_WIDTH) -> str:
    """The offending line, cut to ``width`` characters around the column (so a long line
    cannot widen the panel), with a caret under the column."""
    text = text.expandtabs(4)
    start = 0
    if len(text) > width:
        centre = (column or 1) - 1
        start = max(0, min(centre - width // 2, len(text) - width))
    shown = text[start : start + width]
    if start > 0:
        shown = "…" + shown[1:]
    if start + width < len(text):
        shown = shown[:-1] + "…"
    prefix = f"{line:>4} | "
    excerpt = prefix + shown
    if column is not None and column >= 1:
        excerpt += "\n" + " " * (len(prefix) + column - 1 - start) + "^"
    return excerpt


def unset_constants_text(names: list[str]) -> str:
    """What the editor says of a constant declared without a value (``const double slip;``):
    where the window takes its value, not the command line's ``--const``."""
    listed = ", ".join(names)
    example = ",".join(f"{name}=0.5" for name in names)
    verb = "has" if len(names) == 1 else "have"
    return (
        f"{listed} {verb} no value: add {example} to the Model panel's Constants and press"
        " Build oracle (the Sweep page then varies it)"
    )

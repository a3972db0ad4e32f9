"""The one rule for text in every CSV the project writes: a cell a spreadsheet would run as a
formula gets a leading apostrophe.

Why one function: results are untrusted (an LLM's reply, a shared file), and a reply cell
``=HYPERLINK("http://evil/","x")`` opened in a spreadsheet is a live link or worse. The report's
tables, the ``results --format csv`` export, the ``results.csv`` beside the HTML report and the
policy tables all pass through here, so no CSV writer can forget it. Numbers written as text
(``-0.5``, ``+1``) stay numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

# What Excel, LibreOffice and Google Sheets start a formula with (and the tab/CR tricks).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def _risky(text: str) -> bool:
    """Text a spreadsheet would run (after spaces and apostrophes), unless it is a number."""
    if text.lstrip(" '")[:1] not in FORMULA_STARTS:
        return False
    try:
        float(text)
    except ValueError:
        return True
    return False


def defused(value: object) -> object:
    """``value`` safe as a CSV cell: formula-like text prefixed with ``'``; the rest as it is.
    Text that already starts with apostrophes before a formula gets one more, so ``undefused``
    gives every value back exactly."""
    return "'" + value if isinstance(value, str) and _risky(value) else value


def undefused(value: object) -> object:
    """The value ``defused`` was given (for reading an export back)."""
    if isinstance(value, str) and value.startswith("'") and _risky(value[1:]):
        return value[1:]
    return value


def defused_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every cell and column name defused (headers are data too)."""
    safe = frame.map(defused)
    safe.columns = [defused(column) for column in safe.columns]
    return safe

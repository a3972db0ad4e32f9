"""The terminal's width for the plain-text commands (``envs``, ``oracle``, ``report``,
``results``): ``COLUMNS`` when set, else the terminal's, else 80, as ``shutil`` decides.

Why one place: tables and notes wrapped at a width that ignores ``COLUMNS`` ran to 200-350
columns in an 80-column terminal or log.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence

NARROWEST = 40  # below this no table is readable; lines are wrapped at 40 anyway


def columns() -> int:
    return max(NARROWEST, shutil.get_terminal_size().columns)


def wrapped(text: str, width: int, indent: str = "", first: str = "") -> list[str]:
    """``text`` wrapped to ``width`` at spaces (never inside a word or path), the first line
    starting with ``first`` and the others with ``indent``."""
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=indent,
        break_on_hyphens=False,
        break_long_words=False,
    ) or [first.rstrip()]


def table(
    header: Sequence[str], rows: Sequence[Sequence[str]], width: int, drop: Sequence[int] = ()
) -> list[str]:
    """Left-aligned columns two spaces apart, a dashed rule under the header; the columns
    in ``drop`` (indexes, in order) are left out while the table is wider than ``width``."""
    keep = list(range(len(header)))

    def widths() -> list[int]:
        return [max(len(line[i]) for line in (header, *rows)) for i in keep]

    for column in drop:
        if sum(widths()) + 2 * (len(keep) - 1) <= width:
            break
        keep.remove(column)
    sizes = widths()
    lines = [
        "  ".join(line[i].ljust(size) for i, size in zip(keep, sizes, strict=True)).rstrip()
        for line in (header, *rows)
    ]
    lines.insert(1, "  ".join("-" * size for size in sizes))
    return lines

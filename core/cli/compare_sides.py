"""The two sides of ``compare``, read and compared the one way both of its modes use: the whole
files (``compare_command``) and one part of a split (``compare_cases``).

Why a module of its own: both modes load the two results files, pick the LLM of each side,
refuse an unfinished side (unless ``--partial``) and say both sides last, and run the paired
comparison under the command's options; kept in one of them, the other imported it back (a
circle).
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from explaincheck.core.errors import ExplaincheckError

if TYPE_CHECKING:
    import pandas as pd

    from explaincheck.core.analysis.compare import Comparison
    from explaincheck.core.analysis.completeness import Completeness

WIDTH = 100  # compare's output fits this many columns (its table, its prose, the sides' lines)


def load(path: str, role: str) -> pd.DataFrame:
    """A side's executions, or one line naming the file when it is missing or empty."""
    from explaincheck.core import api

    db = Path(path)
    if not db.is_file():
        raise ExplaincheckError(f"{role} {db}: no results database there")
    results = api.results(db, lean=True)
    if results.empty:
        raise ExplaincheckError(f"{role} {db} holds no results yet")
    return results


def loaded_sides(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame, str, str]:
    """BASE's and NEW's executions and the LLM compared on each (``--llm`` for both, or
    ``--base-llm``/``--new-llm``; the only one a side holds when none is named)."""
    from explaincheck.core.analysis.compare import pick_llm

    if args.llm and (args.base_llm or args.new_llm):
        raise ExplaincheckError("--llm names both sides: give it or --base-llm/--new-llm")
    base, new = load(args.base, "BASE"), load(args.new, "NEW")
    base_llm = pick_llm(base, args.base_llm or args.llm, f"BASE {args.base}")
    new_llm = pick_llm(new, args.new_llm or args.llm, f"NEW {args.new}")
    return base, new, base_llm, new_llm


def compared(
    base: pd.DataFrame, new: pd.DataFrame, base_llm: str, new_llm: str, args: argparse.Namespace
) -> Comparison:
    """The paired comparison of the two sides under the command's options (alpha, max drop,
    flaky cases): one call for the whole files and for each part of a split."""
    from explaincheck.core.analysis.compare import compare_campaigns

    return compare_campaigns(
        base,
        new,
        base_llm,
        new_llm,
        alpha=args.alpha,
        max_drop=args.max_drop,
        exclude_flaky=args.exclude_flaky,
        names=(args.base, args.new),
    )


def finished_sides(base: str, new: str, *, partial: bool) -> dict[str, Completeness]:
    """Each side's planned against graded executions; an unfinished side refused unless
    ``partial`` (a gate run before a campaign ends must not pass on what is stored so far)."""
    from explaincheck.core.analysis.completeness import completeness

    sides = {"base": completeness(base), "new": completeness(new)}
    unfinished = [(role, side) for role, side in sides.items() if not side.finished]
    if unfinished and not partial:
        role, side = unfinished[0]
        path, other = (base, sides["new"]) if role == "base" else (new, sides["base"])
        raise ExplaincheckError(
            f"{role.upper()} {path} is unfinished: {side.words()} (the other side:"
            f" {other.words()}); a gate on part of a campaign passes or fails on what is stored"
            " so far: compare it when its campaign is done, or give --partial"
        )
    return sides


def closing_lines(sides: dict[str, Completeness], base: str, new: str) -> list[str]:
    """Each side's planned and graded executions, said last, wrapped to ``WIDTH`` as the rest
    (the paths made the line grow past it), with a note when ``--partial`` let one through."""
    partial = any(not side.finished for side in sides.values())
    note = " (unfinished: compared with --partial)" if partial else ""
    return wrapped(sides_line(sides, base, new) + note)


def sides_line(sides: dict[str, Completeness], base: str, new: str) -> str:
    """``base B: 38 of 38 planned executions graded; new N: 4 of 38 planned ...``."""
    return "; ".join(
        f"{role} {path}: {sides[role].words()}" for role, path in (("base", base), ("new", new))
    )


def wrapped(text: str) -> list[str]:
    """Prose in lines of at most ``WIDTH`` columns (a word longer than that, a path, is kept)."""
    return textwrap.wrap(text, WIDTH, break_on_hyphens=False, break_long_words=False) or [""]

"""``explaincheck compare``: did the new campaign get worse than the base? Exit 1 if it did.

Why an exit status: the question is asked after every new model, prompt or wording, often by a
CI job; the status is the answer a pipeline reads. The test is paired over exact verdicts and
corrected for the number of categories (core/analysis/compare.py, docs/method.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explaincheck.core import json_output
from explaincheck.core.cli.compare_sides import (
    WIDTH,
    closing_lines,
    compared,
    finished_sides,
    loaded_sides,
    wrapped,
)
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.terminal_text import safe_terminal

if TYPE_CHECKING:
    from explaincheck.core.analysis.compare import CategoryComparison, Comparison

NAME = "compare"
HELP = """Compare two campaigns case by case and gate on a regression.

The two results files are paired by case (same environment, model, category, states and
wording; repeats aggregated per case first); cases found on one side only are counted and left
out. Per category and over all pairs: the paired counts, both pass rates, the difference
new − base, the one-sided exact McNemar p (new worse), Holm's correction over the categories and
the overall line (one family: a false alarm at most alpha), the interval of the difference that
inverts that test at the line's Holm level (its upper end is below 0 exactly when the line is a
regression; - where the pairs are too few for the test to reach that level), and mde — the
smallest drop the test detects with power 0.8 at that many pairs (a suite too small to see a
drop is not evidence of no regression).

Pair on cases: run both campaigns with the same --case-seed (or the same --seed), budget,
selection and categories; the answer seed (--seed) may differ.

Exit status: 1 when the new side is worse than the base by more than --max-drop at --alpha
(after Holm) in any category or overall; 0 otherwise; 2 on an error. Campaigns on different
models (model hash) are refused. Each side's planned executions are set against those graded;
a side whose campaign is unfinished (still running, stopped, or with error rows) is refused,
since a gate on part of a campaign passes or fails on what happens to be stored: give
--partial to compare what is stored anyway (with --cases too).

examples:
  explaincheck compare base.sqlite new.sqlite
  explaincheck compare base.sqlite new.sqlite --base-llm ollama:qwen3:4b --new-llm ollama:qwen3:8b
  explaincheck compare base.sqlite new.sqlite --max-drop 0.05 --json
  explaincheck compare base.sqlite new.sqlite --exclude-flaky --out comparison
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", metavar="BASE.sqlite", help="the base campaign's results")
    parser.add_argument("new", metavar="NEW.sqlite", help="the new campaign's results")
    parser.add_argument(
        "--llm", default=None, metavar="SPEC", help="the LLM to compare on both sides"
    )
    parser.add_argument("--base-llm", default=None, metavar="SPEC", help="the base side's LLM")
    parser.add_argument("--new-llm", default=None, metavar="SPEC", help="the new side's LLM")
    parser.add_argument(
        "--max-drop",
        type=_share(0.0, 1.0, "--max-drop", closed_low=True),
        default=0.0,
        metavar="D",
        help="a drop up to D (a share, e.g. 0.05) is tolerated (default: 0)",
    )
    parser.add_argument(
        "--alpha",
        type=_share(0.0, 1.0, "--alpha", closed_low=False),
        default=0.05,
        metavar="A",
        help="significance level after Holm (default: 0.05)",
    )
    parser.add_argument(
        "--exclude-flaky",
        action="store_true",
        help="leave out the cases whose repeats disagree on either side (docs/method.md)",
    )
    parser.add_argument(
        "--partial",
        action="store_true",
        help="compare even when a side's campaign is unfinished (planned > graded)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--out", default=None, metavar="DIR", help="also write comparison.json, .csv and .md"
    )
    from explaincheck.core.cli.compare_cases import add_argument

    add_argument(parser)  # --cases split.json[:PART]


def _share(low: float, high: float, name: str, *, closed_low: bool) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not (low <= value < high if closed_low else low < value < high):
            raise argparse.ArgumentTypeError(
                f"{name} must lie in {'[' if closed_low else '('}{low:g}, {high:g}), got {text}"
            )
        return value

    return parse


def run(args: argparse.Namespace) -> int:
    if getattr(args, "cases", None):  # one part of a split, judged both ways
        from explaincheck.core.cli.compare_cases import run as run_cases

        return run_cases(args)
    base, new, base_llm, new_llm = loaded_sides(args)
    sides = finished_sides(args.base, args.new, partial=args.partial)
    comparison = compared(base, new, base_llm, new_llm, args)
    extra = {"sides": {role: side.as_dict() for role, side in sides.items()}}
    if args.out:
        write_comparison(comparison, Path(args.out), extra)
    if args.json:
        print(json_output.dumps({**comparison.as_dict(), **extra}, indent=2, ensure_ascii=True))
    else:
        print(safe_terminal(comparison_text(comparison, args.base, args.new)))
        print(safe_terminal("\n".join(closing_lines(sides, args.base, args.new))))
    return 1 if comparison.regression else 0


def comparison_text(comparison: Comparison, base: str, new: str) -> str:
    """The verdict first (the failing category named), then the table and what was left out."""
    from explaincheck.core.analysis.compare import OVERALL

    lines = []
    for line in comparison.failed:
        where = "overall" if line.category == OVERALL else f"in {line.category}"
        lines.append(
            f"REGRESSION {where}: {comparison.new_llm} {line.new_pass:.2f} vs"
            f" {comparison.base_llm} {line.base_pass:.2f} (difference {line.difference:+.2f},"
            f" interval {_interval(line.ci)}), p_holm {line.p_holm:.3g}"
        )
    if not comparison.failed:
        overall = comparison.lines[-1]
        seen = (
            f"the smallest drop these {overall.pairs} pairs detect with power 0.8 is"
            f" {overall.mde:.3f} overall"
            if overall.mde is not None
            else f"these {overall.pairs} pairs are too few to detect any drop"
        )
        lines.append(f"no regression at alpha {comparison.alpha:g}; {seen}")
    lines += wrapped(
        f"base {base} ({comparison.base_llm}) -> new {new} ({comparison.new_llm}):"
        f" {comparison.pairs} pairs; left out: {comparison.only_base} cases only in the base,"
        f" {comparison.only_new} only in the new"
        + (
            f", {comparison.excluded_flaky} flaky cases"
            if comparison.excluded_flaky is not None
            else ""
        )
    )
    lines.append("")
    lines += table_lines(comparison)
    lines.append("")
    lines += wrapped(
        "both/b>n/n>b/none = the paired 2x2: cases both pass, the base or the new side scores"
        " higher, neither passes (shares summed where a case's score is a share of"
        " executions); base, new = pass rates; diff = new - base; p = one-sided exact McNemar"
        " (new worse; with shares of repeats the sign-flip test of the differences); interval"
        " = the difference's interval that inverts that test, each end a one-sided bound at"
        " the line's level in Holm's procedure (95% before the correction), so it lies below 0"
        f" exactly when p_holm < {comparison.alpha:g} (- = too few pairs to reach that level);"
        " mde = smallest drop detected with power 0.8 (- = none: too few pairs)."
    )
    return "\n".join(lines)


HEADERS: tuple[str, ...] = ("pairs", "both", "b>n", "n>b", "none", "base", "new", "diff")
HEADERS += ("interval", "p", "p_holm", "mde", "gate")


def table_lines(comparison: Comparison) -> list[str]:
    """The lines as a table no wider than ``WIDTH``: columns as wide as their widest entry, one
    space apart, one row per category and ``all``; where that is wider (long category names),
    each category's name is printed on a line of its own above its numbers."""
    rows = [_row_values(line) for line in comparison.lines]
    columns = list(zip(HEADERS, *rows, strict=True))
    widths = [max(map(len, column)) for column in columns]
    names = [line.category for line in comparison.lines]
    first = max(len("category"), *map(len, names))

    def cells(values: tuple[str, ...]) -> str:
        return " ".join(v.rjust(w) for v, w in zip(values, widths, strict=True))

    if first + 1 + len(cells(HEADERS)) <= WIDTH:
        found = ["category".ljust(first) + " " + cells(HEADERS)]
        return found + [n.ljust(first) + " " + cells(v) for n, v in zip(names, rows, strict=True)]
    found = ["category", cells(HEADERS)]
    for name, values in zip(names, rows, strict=True):
        found += [name, cells(values)]
    return found


def _row_values(line: CategoryComparison) -> tuple[str, ...]:
    return (
        str(line.pairs),
        _count(line.both_pass),
        _count(line.base_only),
        _count(line.new_only),
        _count(line.both_fail),
        f"{line.base_pass:.2f}",
        f"{line.new_pass:.2f}",
        f"{line.difference:+.2f}",
        _interval(line.ci),
        f"{line.p:.2g}",
        f"{line.p_holm:.2g}",
        "-" if line.mde is None or line.mde != line.mde else f"{line.mde:.3f}",
        "FAIL" if line.regression else "",
    )


def _count(value: float) -> str:
    """A 2x2 entry: a count, or a summed share to one decimal."""
    return str(round(value)) if abs(value - round(value)) < 1e-9 else f"{value:.1f}"


def _interval(ci: tuple[float, float]) -> str:
    low, high = ci
    if low != low or high != high:  # none: too few pairs for the test to reach its level
        return "-"
    return f"[{low:+.2f}, {high:+.2f}]"


def write_comparison(
    comparison: Comparison, out: Path, extra: dict[str, Any] | None = None
) -> list[Path]:
    """comparison.json (with ``extra``'s keys), .csv and .md in ``out``, each written whole
    under a temporary name."""
    from explaincheck.core.analysis.compare_files import write_text_atomic

    if out.exists() and not out.is_dir():
        raise ExplaincheckError(f"--out {out} is a file, not a folder")
    table = comparison.table()
    data = {**comparison.as_dict(), **(extra or {})}
    texts = {
        "comparison.json": json_output.dumps(data, indent=2, ensure_ascii=True) + "\n",
        "comparison.csv": table.to_csv(),
        "comparison.md": table.to_markdown() + "\n",
    }
    written = []
    try:
        for name, text in texts.items():
            written.append(write_text_atomic(out / name, text))
    except OSError as error:
        raise ExplaincheckError(f"--out {out}: cannot write ({error.strerror})") from None
    print(f"wrote {', '.join(p.name for p in written)} to {out}", file=sys.stderr)
    return written

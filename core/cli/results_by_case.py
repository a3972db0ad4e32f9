"""``results --by-case``: one line per (case, LLM) with its runs, passes and stability.

Why beside ``results``: with ``--repeat k`` the question after "what failed?" is "what fails
*sometimes*?" — a flaky case is a test to quarantine, not evidence about the explainer. The
stability rule is core/analysis/stability.py (docs/method.md, "Stability over repeats").
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from explaincheck.core import json_output
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.plural import counted
from explaincheck.core.terminal_text import safe_terminal

FIELDS = ("environment", "llm", "category", "states", "case_key", "runs", "passes", "stability")


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--by-case",
        action="store_true",
        help="one line per (case, LLM): runs, passes and stability (stable-pass, stable-fail,"
        " flaky) over its repeats",
    )


def by_case_rows(frame: Any) -> list[dict[str, Any]]:
    """The (case, LLM) objects of ``results --by-case --json``, from ``rows_frame``'s frame."""
    from explaincheck.core.analysis.stability import case_runs

    cases = case_runs(frame)
    return [
        {
            "environment": str(c["environment"]),
            "llm": str(c["llm"]),
            "category": str(c["category"]),
            "states": list(c["states"]) if c["states"] is not None else [],
            "case_key": str(c["case_key"]),
            "runs": int(c["runs"]),
            "passes": int(c["passes"]),
            # None under two runs (pandas may hold it as NaN in a column of text)
            "stability": c["stability"] if isinstance(c["stability"], str) else None,
        }
        for c in cases.to_dict("records")
    ]


def print_by_case(rows: list[dict[str, Any]], args: argparse.Namespace) -> int:
    if args.verdict:
        raise ExplaincheckError("--by-case counts every verdict of a case: leave --verdict out")
    from explaincheck.core.analysis.stability import merged_versions
    from explaincheck.core.store import rows_frame

    frame = rows_frame(rows)
    found = by_case_rows(frame)
    if args.json or getattr(args, "format", None) == "json":
        sys.stdout.write(json_output.dumps(found, ensure_ascii=True) + "\n")
        return 0
    if not found:
        print("no scored execution")
        return 0
    widths = {f: max(len(f), *(len(_text(r[f])) for r in found)) for f in FIELDS}
    widths["case_key"] = min(widths["case_key"], 40)
    print("  ".join(f.ljust(widths[f]) for f in FIELDS))
    for row in found:
        print(safe_terminal("  ".join(_text(row[f])[:40].ljust(widths[f]) for f in FIELDS)))
    flaky = sum(1 for r in found if r["stability"] == "flaky")
    repeated = sum(1 for r in found if r["stability"] is not None)
    print(f"{flaky} of {repeated} repeated (case, LLM) pairs are flaky")
    left_out = merged_versions(frame)
    if left_out:
        print(
            f"{counted(left_out, 'merged version')} left out: a merge kept "
            + ("it" if left_out == 1 else "them")
            + " beside the repeat each answered, which counts once (docs/method.md,"
            ' "Stability over repeats")'
        )
    return 0


def _text(value: object) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    return "-" if value is None else str(value)

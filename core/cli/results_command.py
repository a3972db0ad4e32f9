"""``explaincheck results``: list the stored executions of a results database.

Why a JSON mode: scripts and tests read results without SQL; the object keys are the contract of
DESIGN.md (environment, llm, category, selection, repeat, states, delta, prompt, reply, answer,
expected, verdict, reason) plus the stored extras.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from explaincheck.core.errors import ExplaincheckError

NAME = "results"
HELP = """List the executions stored in a results database (one per LLM, test case and repeat).

examples:
  explaincheck results --db results.sqlite
  explaincheck results --db results.sqlite --verdict fail --category ranking
  explaincheck results --db results.sqlite --json > results.json
"""

VERDICTS = ("pass", "fail", "invalid", "error")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default="results.sqlite", help="results database")
    parser.add_argument("--json", action="store_true", help="print a JSON array (DESIGN.md keys)")
    parser.add_argument("--verdict", choices=VERDICTS, default=None, help="only this verdict")
    parser.add_argument("--category", default=None, metavar="ID", help="only this category")


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.store import Store, result_dict

    if args.category is not None:
        from explaincheck.core.taxonomy.registry import CATEGORIES

        if args.category not in CATEGORIES:
            raise ExplaincheckError(
                f"unknown category {args.category!r} (valid: {', '.join(CATEGORIES)})"
            )
    with Store.open(args.db, create=False) as store:
        rows = [
            result_dict(r)
            for r in store.iter_executions(verdict=args.verdict, category=args.category)
        ]
    try:
        if args.json:
            json.dump(rows, sys.stdout, ensure_ascii=False)
            sys.stdout.write("\n")
        else:
            print(table(rows))
        sys.stdout.flush()
    except BrokenPipeError:  # `explaincheck results | head`: the reader has enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _one_line(text: object, width: int) -> str:
    flat = " ".join(str(text if text is not None else "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def table(rows: list[dict]) -> str:
    """A plain-text table; replies and reasons are flattened to one line (never interpreted)."""
    if not rows:
        return "no executions"
    llm_width = min(max(len(str(r["llm"])) for r in rows), 28)
    header = (
        f"{'id':>5}  {'llm':<{llm_width}}  {'category':<17} {'sel':<4} {'rep':>3}  "
        f"{'states':<14} {'verdict':<8} {'answer':<20} reason"
    )
    lines = [header]
    for r in rows:
        states = ",".join(map(str, r["states"] or []))
        answer = json.dumps(r["answer"], ensure_ascii=False) if r["answer"] is not None else "-"
        lines.append(
            f"{r['id']:>5}  {_one_line(r['llm'], llm_width):<{llm_width}}  {r['category']:<17}"
            f" {r['selection'][:4]:<4} {r['repeat']:>3}  {_one_line(states, 14):<14}"
            f" {r['verdict']:<8} {_one_line(answer, 20):<20} {_one_line(r['reason'], 60)}"
        )
    counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    lines.append(
        f"{len(rows)} executions: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    )
    return "\n".join(lines)

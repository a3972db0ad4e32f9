"""``explaincheck envs``: the built-in environments with their oracle facts.

The numbers (states, bottlenecks, dead ends, V(s0)) come from the oracle, not from the TOML, so
the listing doubles as a check that every environment still has the structure it promises.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult

NAME = "envs"
HELP = """List the built-in environments: id, title, size, bottlenecks, dead ends, V(s0) and the
query categories each can serve, all computed by the oracle (cached after the first run).

examples:
  explaincheck envs
  explaincheck envs --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="print a JSON array, one object per environment"
    )


def served_categories(result: OracleResult) -> list[str]:
    """Categories with test cases here, from the oracle (``registry.applicability``)."""
    from explaincheck.core.taxonomy.registry import applicability

    return [cid for cid, found in applicability(result).items() if found.applicable]


def row(env: Environment, result: OracleResult) -> dict[str, Any]:
    """The facts ``envs`` shows for one environment (the JSON object)."""
    from explaincheck.core.oracle.do_nothing import do_nothing_summary
    from explaincheck.core.taxonomy.registry import applicability

    found = applicability(result)
    do_nothing = do_nothing_summary(result)
    initial = result.initial
    between = sum(1 for s in result.states if 0 < s.value < 1)
    return {
        "id": env.id,
        "title": env.title,
        "constants": env.constants,
        "states": result.model.states,
        "choices": result.model.choices,
        "bottlenecks": len(result.bottlenecks),
        "dead_ends": len(result.dead_ends),
        "V0": initial.value,
        "V0_exact": initial.value_exact,
        "share_between": between / result.model.states,
        "categories": served_categories(result),
        "not_applicable": {cid: f.reason for cid, f in found.items() if f.reason},
        "caveats": {cid: f.caveat for cid, f in found.items() if f.caveat},
        "method": result.method,
        "do_nothing": {"states": do_nothing.states, "actions": list(do_nothing.actions)},
    }


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.environments.registry import list_builtin
    from explaincheck.core.oracle import compute_oracle

    rows = [row(env, compute_oracle(env.request())) for env in list_builtin()]
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(table_text(rows))
    return 0


def table_text(rows: list[dict[str, Any]]) -> str:
    header = (
        "id",
        "title",
        "states",
        "choices",
        "bottlenecks",
        "dead ends",
        "do-nothing",
        "V(s0)",
        "categories",
    )
    body = [
        (
            r["id"],
            r["title"],
            str(r["states"]),
            str(r["choices"]),
            str(r["bottlenecks"]),
            str(r["dead_ends"]),
            str(r.get("do_nothing", {}).get("states", 0)),
            f"{r['V0']:.4f}",
            _categories_text(r["categories"]) + ("*" if r.get("caveats") else ""),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in (header, *body)) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in (header, *body)
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    notes = [
        f"* {r['id']}: {cid} is left out of default campaigns: {caveat}"
        for r in rows
        for cid, caveat in r.get("caveats", {}).items()
    ]
    notes += [
        f"do-nothing {r['id']}: {', '.join(r['do_nothing']['actions'])} (every outcome is the"
        " state itself) left out of preference questions"
        for r in rows
        if r.get("do_nothing", {}).get("states")
    ]
    return "\n".join([*lines, *(["", *notes] if notes else [])])


def _categories_text(served: list[str]) -> str:
    from explaincheck.core.taxonomy.registry import CATEGORIES

    missing = [c for c in CATEGORIES if c not in served]
    if not missing:
        return f"all {len(CATEGORIES)}"
    return f"{len(served)} of {len(CATEGORIES)} (not {', '.join(missing)})"

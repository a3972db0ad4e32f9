"""``explaincheck envs``: the built-in environments with their oracle facts.

The numbers (states, bottlenecks, dead ends, V(s0)) come from the oracle, not from the TOML, so
the listing doubles as a check that every environment still has the structure it promises.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from explaincheck.core import json_output
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult

NAME = "envs"
HELP = """List the built-in environments: id, title, size, bottlenecks, dead ends, V(s0) and the
query categories each can serve, all computed by the oracle (cached after the first run), and
the properties of their own beside Pmax=? [F goal] (run --property NAME).

examples:
  explaincheck envs
  explaincheck envs --json
  explaincheck envs --prompt frozen_lake --state 8   # the README's "Example prompt" block
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="print a JSON array, one object per environment"
    )
    parser.add_argument(
        "--prompt",
        metavar="ID",
        help="print the 'Example prompt' block of environment ID's README (a best-action case)",
    )
    parser.add_argument(
        "--state", type=int, help="with --prompt: the state asked about (default: the initial)"
    )


def served_categories(result: OracleResult) -> list[str]:
    """Categories with test cases here, from the oracle (``registry.applicability``)."""
    from explaincheck.core.taxonomy.registry import applicability

    return [cid for cid, found in applicability(result).items() if found.applicable]


def row(env: Environment, result: OracleResult) -> dict[str, Any]:
    """The facts ``envs`` shows for one environment (the JSON object)."""
    from explaincheck.core.cli.skip_words import on_request
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
        "on_request": on_request(result),  # opt-in categories, not "not applicable"
        "caveats": {cid: f.caveat for cid, f in found.items() if f.caveat},
        "method": result.method,
        "do_nothing": {"states": do_nothing.states, "actions": list(do_nothing.actions)},
        # the environment's own properties beside Pmax [F goal] (run --property NAME)
        "properties": {name: prop.text for name, prop in env.properties.items()},
    }


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.environments.registry import list_builtin
    from explaincheck.core.oracle import compute_oracle

    if args.prompt:
        from explaincheck.core.cli.readme_prompt import readme_prompt
        from explaincheck.core.environments.registry import load_builtin

        env = load_builtin(args.prompt)
        print(readme_prompt(env, compute_oracle(env.request()), args.state))
        return 0
    rows = [row(env, compute_oracle(env.request())) for env in list_builtin()]
    if args.json:
        json_output.write(rows, sys.stdout, indent=1)
    else:
        print(table_text(rows))
    return 0


def table_text(rows: list[dict[str, Any]], width: int | None = None) -> str:
    """The table, no wider than ``width`` (the terminal's) where it can be, then notes that say
    which categories each environment lacks and why, grouped so that a reason is said once."""
    from explaincheck.core.cli import width as terminal
    from explaincheck.core.taxonomy.registry import CATEGORIES

    width = width or terminal.columns()
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
            f"{len(r['categories'])} of {len(CATEGORIES)}" + ("*" if _notes_of(r) else ""),
        )
        for r in rows
    ]
    lines = terminal.table(
        header, body, width, drop=(1, 6, 3)
    )  # the title goes first, then do-nothing (in the notes too), then choices (a plugin's
    # namespaced id widens the first column: explaincheck-ferrylab/ferry)
    notes = _grouped_notes(rows) + _property_notes(rows)
    if notes:
        lines.append("")
        for note in notes:
            lines += terminal.wrapped(note, width, indent="  ", first="* ")
    return "\n".join(lines)


def _property_notes(rows: list[dict[str, Any]]) -> list[str]:
    """One note per environment with properties of its own: what ``--property NAME`` asks."""
    return [
        f"properties of {r['id']} (--property NAME): "
        + "; ".join(f"{name} = {text}" for name, text in r["properties"].items())
        for r in rows
        if r.get("properties")
    ]


def _notes_of(r: dict[str, Any]) -> bool:
    on_request = set(r.get("on_request", ()))
    return bool(r.get("caveats")) or any(c not in on_request for c in r.get("not_applicable", {}))


def _grouped_notes(rows: list[dict[str, Any]]) -> list[str]:
    """ "no test case for X, Y: a, b", "Z is left out of default campaigns for a, b: why" and
    "X: on request only" for the categories asked only by id (``Category.on_request``), each
    reason once."""
    missing: dict[tuple[str, ...], list[str]] = {}
    caveats: dict[tuple[str, str], list[str]] = {}
    requested: dict[str, list[str]] = {}
    for r in rows:
        on_request = set(r.get("on_request", ()))
        for category in sorted(on_request):
            requested.setdefault(category, []).append(r["id"])
        lacking = tuple(c for c in r.get("not_applicable", {}) if c not in on_request)
        if lacking:
            missing.setdefault(lacking, []).append(r["id"])
        for category, caveat in r.get("caveats", {}).items():
            caveats.setdefault((category, caveat), []).append(r["id"])
    notes = [f"{', '.join(envs)}: no test case for {', '.join(c)}" for c, envs in missing.items()]
    notes += [
        f"{category} is left out of default campaigns for {', '.join(envs)}: {caveat}"
        for (category, caveat), envs in caveats.items()
    ]
    for category, envs in requested.items():
        where = "every environment" if len(envs) == len(rows) else ", ".join(envs)
        notes.append(f"{category}: on request only, in {where} (--categories {category})")
    notes += [
        f"do-nothing {r['id']}: {', '.join(r['do_nothing']['actions'])} (every outcome is the"
        " state itself) left out of preference questions"
        for r in rows
        if r.get("do_nothing", {}).get("states")
    ]
    return notes

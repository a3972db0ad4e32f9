"""``explaincheck sweep``: V of the initial state and A* against one constant, tipping points."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from explaincheck.core import json_output
from explaincheck.core.cli.property_option import (
    add_property_argument,
    check_goal_and_property,
    model_constants,
)
from explaincheck.core.cli.target_argument import add_target_arguments
from explaincheck.core.errors import ExplaincheckError

NAME = "sweep"
HELP = """Sweep one undefined constant over a range: V of the initial state and A* at each point
(one oracle run each, cached), and the tipping points where A*(s) changes, located exactly by a
tie at a point or Storm's parametric engine where it applies, else by bisection.

examples:
  explaincheck sweep tests/models/slip.prism --const slip      # the range a sweep offers
  explaincheck sweep tests/models/flip.prism --const p=0.1:0.9:0.05
  explaincheck sweep frozen_lake --const N=3:6:1 --state 0 --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL|ENV", help="a .prism file or a built-in id")
    parser.add_argument(
        "--const",
        action="append",
        required=True,
        help="NAME=LO:HI:STEP for the swept constant (NAME alone: its whole range, 0 to 1 for"
        " a probability); other constants as N=3,q=0.5",
    )
    parser.add_argument(
        "--state", action="append", type=int, default=None, help="state id(s) to follow"
    )
    add_target_arguments(parser, "")
    add_property_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the sweep as JSON")
    parser.add_argument(
        "--png", default=None, help="also write the plot to this PNG file (none unless asked)"
    )
    parser.add_argument(
        "--no-exact", action="store_true", help="do not locate tipping points within intervals"
    )


def _split(values: list[str]) -> tuple[str, str]:
    """(the swept NAME=LO:HI:STEP, the other constants)."""
    swept: list[str] = []
    fixed: list[str] = []
    for value in values:
        for part in value.split(","):
            if part.strip():
                offered = ":" in part or "=" not in part  # a bare NAME: the range offered
                (swept if offered else fixed).append(part.strip())
    if len(swept) != 1:
        raise ExplaincheckError(
            "give exactly one constant to sweep as NAME=LO:HI:STEP or NAME, e.g."
            " --const p=0.1:0.9:0.05"
        )
    return swept[0], ",".join(fixed)


def _offered(model_path: str, name: str) -> str:
    """``NAME=LO:HI:STEP`` over the range offered for ``name`` (said on stderr, with why)."""
    from explaincheck.core.oracle.program import describe_program
    from explaincheck.core.workbench.sweep_range import offered_range

    program = describe_program(model_path)
    if name not in {c.name for c in program.undefined}:
        undefined = ", ".join(c.name for c in program.undefined) or "none"
        raise ExplaincheckError(
            f"--const {name}: not an undefined constant of {model_path} (undefined: {undefined})"
        )
    offered = offered_range(program, name)
    print(
        f"sweeping {name} from {offered.low} to {offered.high} step {offered.step}: {offered.why}",
        file=sys.stderr,
    )
    return f"{name}={offered.low}:{offered.high}:{offered.step}"


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.environments.registry import resolve
    from explaincheck.core.oracle.constants_text import without_constant
    from explaincheck.core.workbench.sweep import SweepPoint, parse_range
    from explaincheck.core.workbench.sweep_output import render_table, sweep_figure, to_json
    from explaincheck.core.workbench.sweep_run import run_sweep

    swept, fixed = _split(args.const)
    check_goal_and_property(args.goal, args.property)
    environment = resolve(
        args.model,
        constants=model_constants(args.property, fixed) or None,
        goal_label=args.goal,
        unsafe_label=args.unsafe,
    )
    if "=" not in swept:  # the range the GUI's Sweep page offers: a probability's whole range
        swept = _offered(environment.model_path, swept)
    sweep_range = parse_range(swept)
    prop = environment.resolve_property(args.property, fixed)[0] if args.property else None
    request = environment.request(require_unsafe=args.unsafe is not None, property=prop)
    request = replace(request, constants=without_constant(request.constants, sweep_range.name))
    states = tuple(args.state) if args.state else None

    def progress(done: int, total: int, point: SweepPoint) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\rpoint {done}/{total}", end="", file=sys.stderr, flush=True)

    result = run_sweep(
        request, sweep_range, states, exact_points=not args.no_exact, on_point=progress
    )
    if all(p.failed for p in result.points):
        raise ExplaincheckError(f"every point failed; the first: {result.points[0].error}")
    followed = states or result.flipping  # by default, the states whose best action flips
    png = args.png
    if png:
        from explaincheck.core.atomic_files import write_atomically

        figure = sweep_figure(result, followed)
        kind = Path(png).suffix.lstrip(".").lower() or "png"
        write_atomically(png, lambda out: figure.savefig(out, format=kind, dpi=120), binary=True)
    if args.json:
        print(json_output.dumps(to_json(result), indent=1))
    else:
        print(render_table(result, followed))
        if png:
            print(f"plot: {png}")
    return 0

"""``explaincheck oracle``: model-check a PRISM model or environment and print the oracle."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from explaincheck.core import json_output
from explaincheck.core.cli.property_option import (
    add_property_argument,
    check_goal_and_property,
    model_constants,
)
from explaincheck.core.cli.target_argument import add_target_arguments
from explaincheck.core.oracle.storm.targets import formula_of
from explaincheck.core.oracle.types import OracleRequest, OracleResult

if TYPE_CHECKING:
    from explaincheck.core.oracle.do_nothing import DoNothing
    from explaincheck.core.oracle.isolation import OracleProgress

NAME = "oracle"
HELP = """Model-check a PRISM MDP and print the exact oracle: V, D, Q, A*, A°, dead ends,
bottlenecks and betweenness centrality of every reachable state.

examples:
  explaincheck oracle frozen_lake
  explaincheck oracle model.prism --const N=3,p=0.5 --goal done --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model", metavar="MODEL|ENV", help="a .prism file or a built-in environment id"
    )
    parser.add_argument("--const", default=None, help="constant values, e.g. N=3,p=0.5")
    add_target_arguments(parser, "")
    add_property_argument(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the oracle as JSON (the contract other tools read)",
    )
    parser.add_argument(
        "--method",
        choices=["auto", "exact", "verified"],
        default="auto",
        help="exact Rational engine, verified float method, or auto by size",
    )
    parser.add_argument(
        "--state-limit",
        type=positive_int,
        default=2_000_000,
        help="refuse models with more states (default 2,000,000)",
    )
    parser.add_argument("--no-cache", action="store_true", help="recompute even if cached")
    parser.add_argument(
        "--centrality",
        action="store_true",
        help="also compute betweenness centrality on models of 5,000 states or more (a picture"
        " aid, sampled there; without this flag --json prints null and says so)",
    )
    add_policy_arguments(parser)


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    """``--policy FILE`` and ``--policy-default`` (oracle, run and report share them)."""
    parser.add_argument(
        "--policy",
        metavar="FILE",
        default=None,
        help="a policy table (CSV or JSON keyed by the state variables, then the action or a"
        " distribution such as up:0.7,left:0.3): adds V^pi, D^pi, regret and the value loss",
    )
    parser.add_argument(
        "--policy-default",
        choices=["uniform", "optimal"],
        default=None,
        help="what a state the policy table leaves out gets (default: such a state is an error)",
    )


def positive_int(text: str) -> int:
    """An argparse type: a whole number above zero (``--state-limit -5`` makes no sense)."""
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _is_bare(text: str) -> bool:
    """A PRISM file outside any environment folder: told from the path where it can be
    (``folder_layout.surely_bare``), else by the registry, whose import discovers plugins."""
    from explaincheck.core.environments.folder_layout import surely_bare

    if surely_bare(text):
        return True
    from explaincheck.core.environments.registry import is_bare_model

    return is_bare_model(text)


def request_from(args: argparse.Namespace) -> OracleRequest:
    """Resolve MODEL|ENV (built-in ids take their environment's constants and labels). A bare
    PRISM file's request needs no environment: its generic wording would have Storm parse the
    file in a child process of its own (``describe_program``), which the oracle's child parses
    again anyway."""
    method, limit, require_unsafe = args.method, args.state_limit, args.unsafe is not None
    spec = getattr(args, "property", None)
    check_goal_and_property(args.goal, spec)
    if _is_bare(args.model):
        path = Path(args.model).expanduser()
        constants, prop = args.const or "", None
        if spec:
            from explaincheck.core.environments.generic import beside_properties
            from explaincheck.core.oracle.property import resolve_property, without_constants

            found = resolve_property(spec, constants=constants, named=beside_properties(path))
            prop = found.property
            constants = without_constants(constants, found.property_constants)
        return OracleRequest(
            model_path=str(path),
            constants=constants,
            goal_label=prop.goal_text if prop else args.goal or "goal",
            unsafe_label=args.unsafe or "unsafe",
            method=method,
            state_limit=limit,
            require_unsafe=require_unsafe,
            property=prop,
        )
    from explaincheck.core.environments.registry import resolve

    constants = model_constants(spec, args.const)
    environment = resolve(
        args.model, constants=constants, goal_label=args.goal, unsafe_label=args.unsafe
    )
    prop = environment.resolve_property(spec, args.const or "")[0] if spec else None
    return environment.request(
        method=method, state_limit=limit, require_unsafe=require_unsafe, property=prop
    )


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.oracle import compute_oracle
    from explaincheck.core.oracle.blas_threads import one_blas_thread
    from explaincheck.core.oracle.page_faults import fewer_page_faults
    from explaincheck.core.oracle.serialization import to_contract, write_contract

    one_blas_thread()  # before NumPy's import: this process only runs the oracle
    fewer_page_faults()  # before the child is forked: it inherits them; the JSON gains too
    progress = OracleProgressLine(sys.stderr)
    try:
        request = replace(request_from(args), centrality=args.centrality)
        result = compute_oracle(request, use_cache=not args.no_cache, on_progress=progress)
    finally:
        progress.close()
    if args.centrality and result.columnar:  # a cached result may not have it yet
        from explaincheck.core.oracle.columnar import ColumnarStates

        cast(ColumnarStates, result.states).centrality_scores()
    chain = None
    if args.policy:
        from explaincheck.core.policy.attach import attach_file

        chain = attach_file(result, args.policy, args.policy_default or "").policy
    if args.json and chain is None:
        # a chunk of states at a time, each through json.dumps (the C encoder; json.dump
        # takes the pure-Python one): the same text without the whole contract in memory
        write_contract(result, sys.stdout)
    elif args.json and chain is not None:
        from explaincheck.core.policy.contract import add_policy

        json_output.write(add_policy(to_contract(result), chain), sys.stdout)
    else:
        from explaincheck.core.cli.width import columns

        print(summary_text(result, declared_order(result.model.path), columns()))
        if chain is not None:
            from explaincheck.core.policy.contract import loss_lines

            names = {s.id: _state_name(result, s.id) for s in result.states}
            print("\n".join(loss_lines(chain, names)))
    return 0


class OracleProgressLine:
    """The oracle's phase, counts, time and memory on stderr: one redrawn line with a bar of
    the phases done on a terminal from the second second on, elsewhere (logs, CI) a line every
    10 s from the 30th, so quick runs stay silent."""

    def __init__(self, stream: TextIO, delay: float | None = None) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.delay = delay if delay is not None else (2.0 if self.tty else 30.0)
        self.interval = 0.25 if self.tty else 10.0
        self._last = -1e9
        self._shown = False

    def __call__(self, progress: OracleProgress) -> None:
        if progress.phase == "starting" or progress.seconds < self.delay:
            return
        if progress.seconds - self._last < self.interval:
            return
        self._last = progress.seconds
        counts = ", ".join(f"{value:,} {name}" for name, value in progress.counts.items() if value)
        text = (
            f"oracle: {progress.phase}"
            + (f" ({counts})" if counts else "")
            + f"  {int(progress.seconds // 60):02d}:{int(progress.seconds % 60):02d}"
            + f"  {progress.memory / (1 << 20):,.0f} MB  (Ctrl-C cancels)"
        )
        if self.tty:
            text = text.replace("oracle: ", f"oracle: {_bar(progress.fraction)} ", 1)
            self.stream.write("\r" + text + "\x1b[K")
            self._shown = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False


def _bar(fraction: float | None, width: int = 20) -> str:
    """``[######..............]``: the share of the oracle's phases done."""
    filled = int(width * (fraction or 0.0))
    return "[" + "#" * filled + "." * (width - filled) + "]"


def _fmt(value: float | None) -> str:
    return "absent" if value is None else f"{value:.6g}"


def _value(value: float) -> str:
    """V for the summary: an infinite expected reward in words."""
    if math.isinf(value):
        return "∞ (the target is not reached for sure)"
    return _fmt(value)


def _exact_suffix(value: float, exact: str | None) -> str:
    """ " = 14/17" where the fraction says more than the decimal."""
    return f" = {exact}" if exact and exact != _fmt(value) else ""


def summary_text(result: OracleResult, order: Sequence[str] = (), width: int | None = None) -> str:
    """The oracle in a dozen labelled lines, wrapped to ``width``; valuations list the
    variables in ``order`` (the model's declaration order), then any others."""
    from explaincheck.core.cli.width import wrapped
    from explaincheck.core.oracle.do_nothing import do_nothing_summary
    from explaincheck.core.plural import counted

    model = result.model
    initial = result.peek(model.initial)  # no centrality: the summary shows none
    bottlenecks = result.bottlenecks
    shown = ", ".join(_state_name(result, s, order) for s in bottlenecks[:10])
    more = f" and {len(bottlenecks) - 10} more" if len(bottlenecks) > 10 else ""
    danger = _fmt(initial.danger)
    if initial.danger is not None:
        danger += _exact_suffix(initial.danger, initial.danger_exact)
    pairs = [
        ("model", f"{model.path}" + (f"  ({_spaced(model.constants)})" if model.constants else "")),
        (
            "size",
            f"{counted(model.states, 'state')}, {counted(model.choices, 'choice')},"
            f" {counted(model.transitions, 'transition')}",
        ),
        *(
            [
                (
                    "decisions",
                    "none: one choice per state, as in a DTMC (V = Pmax = Pmin; no"
                    " question about actions has a case)",
                )
            ]
            if model.choices <= model.states
            else []
        ),
        (
            "properties",
            f"V = {result.prop.text}"
            + (
                f", D = Pmin=? [F {formula_of(model.unsafe_label, model.labels)}]"
                if result.has_danger
                else ", D absent (no unsafe label)"
            ),
        ),
        ("V(s0)", _value(initial.value) + _exact_suffix(initial.value, initial.value_exact)),
        ("D(s0)", danger),
        ("dead ends", f"{len(result.dead_ends):,}"),
        ("bottlenecks", f"{len(bottlenecks)}" + (f": {shown}{more}" if bottlenecks else "")),
        ("do-nothing", _do_nothing_line(do_nothing_summary(result))),
        (
            "method",
            f"{result.method}"
            + (
                f" (tie tolerance {result.tie_tolerance:g})"
                if result.tie_tolerance
                else " (exact rationals)"
            ),
        ),
        ("time", f"{result.seconds:.2f} s" + (" (from cache)" if result.from_cache else "")),
    ]
    if result.values_method:
        pairs.append(("values by", result.values_method))
    pairs.append(("centrality", result.centrality_described))
    pairs += [("warning", w) for w in result.warnings]
    indent = " " * 13
    lines: list[str] = []
    for key, text in pairs:
        if width is None:
            lines.append(f"{key:<13}{text}")
        else:
            lines += wrapped(text, width, indent=indent, first=f"{key:<13}")
    return "\n".join(lines)


def declared_order(path: str) -> list[str]:
    """The state variables of a PRISM file in the order it declares them (Storm lists them
    alphabetically); [] when the file cannot be read."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return []
    text = re.sub(r"//[^\n]*", "", text)
    found = re.findall(r"(?m)^\s*(?:global\s+)?([A-Za-z_]\w*)\s*:\s*(?:\[|bool\b|int\b)", text)
    return list(dict.fromkeys(found))


def _do_nothing_line(found: DoNothing) -> str:
    if not found.states:
        return "none"
    return f"{found.words()}: every outcome is the state itself; left out of preference questions"


def _state_name(result: OracleResult, state_id: int, order: Sequence[str] = ()) -> str:
    valuation = result.peek(state_id).valuation
    names = [v for v in order if v in valuation] + [v for v in valuation if v not in order]
    inner = ",".join(f"{k}={valuation[k]}" for k in names)
    return f"{state_id} ({inner})"


def _spaced(constants: str) -> str:
    """``N=4, p=0.5``: room to wrap a long list of constants at a comma."""
    return ", ".join(part.strip() for part in constants.split(","))

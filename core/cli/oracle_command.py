"""``explaincheck oracle``: model-check a PRISM model or environment and print the oracle."""

from __future__ import annotations

import argparse
import json
import sys

from explaincheck.core.oracle.types import OracleRequest, OracleResult

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
    parser.add_argument("--goal", default=None, help="goal label (default: goal)")
    parser.add_argument("--unsafe", default=None, help="unsafe label (default: unsafe)")
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


def positive_int(text: str) -> int:
    """An argparse type: a whole number above zero (``--state-limit -5`` makes no sense)."""
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def request_from(args: argparse.Namespace) -> OracleRequest:
    """Resolve MODEL|ENV (built-in ids take their environment's constants and labels)."""
    from explaincheck.core.environments.registry import resolve

    environment = resolve(
        args.model, constants=args.const, goal_label=args.goal, unsafe_label=args.unsafe
    )
    return environment.request(
        method=args.method, state_limit=args.state_limit, require_unsafe=args.unsafe is not None
    )


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.oracle import compute_oracle
    from explaincheck.core.oracle.serialization import to_contract

    progress = OracleProgressLine(sys.stderr)
    try:
        result = compute_oracle(
            request_from(args), use_cache=not args.no_cache, on_progress=progress
        )
    finally:
        progress.close()
    if args.json:
        json.dump(to_contract(result), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(summary_text(result))
    return 0


class OracleProgressLine:
    """The oracle's phase, counts, time and memory on stderr: one redrawn line on a terminal
    from the second second on, elsewhere (logs, CI) a line every 10 s from the 15th, so quick
    runs stay silent."""

    def __init__(self, stream, delay: float | None = None):
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.delay = delay if delay is not None else (1.0 if self.tty else 30.0)
        self.interval = 0.25 if self.tty else 10.0
        self._last = -1e9
        self._shown = False

    def __call__(self, progress) -> None:
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


def _fmt(value: float | None) -> str:
    return "absent" if value is None else f"{value:.6g}"


def _exact_suffix(value: float, exact: str | None) -> str:
    """ " = 14/17" where the fraction says more than the decimal."""
    return f" = {exact}" if exact and exact != _fmt(value) else ""


def summary_text(result: OracleResult) -> str:
    from explaincheck.core.oracle.do_nothing import do_nothing_summary

    model = result.model
    initial = result.initial
    bottlenecks = result.bottlenecks
    shown = ", ".join(_state_name(result, s) for s in bottlenecks[:10])
    more = f" and {len(bottlenecks) - 10} more" if len(bottlenecks) > 10 else ""
    lines = [
        f"model        {model.path}" + (f"  ({model.constants})" if model.constants else ""),
        f"size         {model.states:,} states, {model.choices:,} choices, "
        f"{model.transitions:,} transitions",
        f'properties   V = Pmax=? [F "{model.goal_label}"]'
        + (
            f', D = Pmin=? [F "{model.unsafe_label}"]'
            if result.has_danger
            else ", D absent (no unsafe label)"
        ),
        f"V(s0)        {_fmt(initial.value)}" + _exact_suffix(initial.value, initial.value_exact),
        f"D(s0)        {_fmt(initial.danger)}",
        f"dead ends    {len(result.dead_ends):,}",
        f"bottlenecks  {len(bottlenecks)}" + (f": {shown}{more}" if bottlenecks else ""),
        f"do-nothing   {_do_nothing_line(do_nothing_summary(result))}",
        f"method       {result.method}"
        + (
            f" (tie tolerance {result.tie_tolerance:g})"
            if result.tie_tolerance
            else " (exact rationals)"
        ),
        f"time         {result.seconds:.2f} s" + (" (from cache)" if result.from_cache else ""),
    ]
    if result.values_method:
        lines.append(f"values by    {result.values_method}")
    lines.append(f"centrality   {result.centrality_method}")
    lines += [f"warning      {w}" for w in result.warnings]
    return "\n".join(lines)


def _do_nothing_line(found) -> str:
    if not found.states:
        return "none"
    return f"{found.words()}: every outcome is the state itself; left out of preference questions"


def _state_name(result: OracleResult, state_id: int) -> str:
    valuation = result.state(state_id).valuation
    inner = ",".join(f"{k}={v}" for k, v in valuation.items())
    return f"{state_id} ({inner})"

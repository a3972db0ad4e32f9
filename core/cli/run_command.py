"""``explaincheck run``: plan a campaign, ask the LLMs, grade and store every execution.

Why it resumes by default: the same command on the same database continues a stopped campaign
(finished executions kept, ``error`` ones retried), so Ctrl-C or a crash costs only the requests
that were in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections import Counter
from typing import Any

from explaincheck.core.errors import ExplaincheckError

NAME = "run"
HELP = """Run a test campaign: select test cases per category, ask every LLM, grade each reply
against the oracle and store it at once in a SQLite database. Running the same command again on
the same database continues where it stopped (errors are retried, nothing is duplicated).

LLM specs: random, oracle, ollama:MODEL (host from --ollama-host or OLLAMA_HOST),
ollama:MODEL@URL, local:gemma3-270m. OLLAMA_API_KEY is sent as a bearer key when set.

examples:
  explaincheck run --env frozen_lake --llm oracle --llm random --budget 20 --selection both
  explaincheck run --env frozen_lake --llm ollama:gemma3:1b --db gemma.sqlite
  explaincheck run --env model.prism --const N=4 --llm ollama:qwen3:8b \\
      --ollama-host http://gpu1:11434 --ollama-host http://gpu2:11434 --concurrency 2
  explaincheck run --env frozen_lake --llm local:gemma3-270m --budget 3
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--env",
        required=True,
        metavar="ENV|MODEL",
        help="a built-in environment id or a .prism file",
    )
    parser.add_argument(
        "--llm", action="append", required=True, metavar="SPEC", help="LLM under test (repeatable)"
    )
    parser.add_argument(
        "--categories", default="all", metavar="all|ID,ID", help="categories to test (default: all)"
    )
    parser.add_argument("--budget", type=int, default=20, help="test cases per category (20)")
    parser.add_argument(
        "--selection",
        default="prioritized",
        choices=["prioritized", "random", "both"],
        help="highest-δ cases, a seeded random draw, or both (prioritized)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of selection and decoding (0)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="times each prompt is asked (1); above 1 each repeat has its own seed and"
        " temperature 0.7 (greedy repeats would only repeat the same answer)",
    )
    parser.add_argument(
        "--wording",
        default="0",
        metavar="0|1|2|all",
        help="phrasing of each question (0, the original); all asks every phrasing",
    )
    parser.add_argument(
        "--metamorphic",
        action="store_true",
        help="also ask each case with its states swapped/reordered/renamed and its actions"
        " reordered, to measure how consistent the answers are",
    )
    parser.add_argument("--db", default="results.sqlite", help="results database")
    parser.add_argument(
        "--concurrency", type=int, default=4, help="requests in flight per LLM, per Ollama host (4)"
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds to wait for one reply (120)"
    )
    parser.add_argument(
        "--ollama-host",
        action="append",
        default=[],
        metavar="URL",
        help="Ollama server (repeatable: requests spread over the hosts)",
    )
    parser.add_argument("--const", default=None, help="constant values, e.g. N=3,p=0.5")
    parser.add_argument("--goal", default=None, help="goal label (default: the environment's)")
    parser.add_argument("--unsafe", default=None, help="unsafe label (default: the environment's)")


def campaign_from(args: argparse.Namespace) -> Any:
    from explaincheck.core.backends.registry import parse_spec
    from explaincheck.core.campaign.plan import Campaign, resolve_categories, resolve_wordings

    for spec in args.llm:
        parse_spec(spec)
    if args.concurrency < 1:
        raise ExplaincheckError(f"--concurrency must be at least 1 (got {args.concurrency})")
    if args.timeout <= 0:
        raise ExplaincheckError(f"--timeout must be positive (got {args.timeout:g})")
    return Campaign(
        environment=args.env,
        llms=tuple(args.llm),
        categories=resolve_categories(args.categories),
        budget=args.budget,
        selection=args.selection,
        repeat=args.repeat,
        seed=args.seed,
        constants=args.const,
        goal_label=args.goal,
        unsafe_label=args.unsafe,
        wordings=resolve_wordings(args.wording),
        metamorphic=args.metamorphic,
    )


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.campaign.plan import plan_campaign
    from explaincheck.core.store import Store

    logging.basicConfig(level=logging.WARNING, format="explaincheck run: %(message)s")
    campaign = campaign_from(args)
    with Store.open(args.db) as store:
        plan = plan_campaign(campaign)
        _describe(plan, args.db)
        outcome = asyncio.run(_execute(plan, store, args))
        _summary(plan, store)
    progress = outcome.progress
    if progress.state == "cancelled":
        print(
            f"explaincheck run: interrupted; {progress.done} of {progress.total} executions are"
            " stored: run the same command again to continue",
            file=sys.stderr,
        )
        return 130
    if not outcome.complete:
        left = progress.total - progress.done
        for message in outcome.stopped.values():
            print(f"explaincheck run: {message}", file=sys.stderr)
        print(
            f"explaincheck run: {left} executions have no result yet ({progress.errors} ended in"
            " error): run the same command again to retry them",
            file=sys.stderr,
        )
        return 1
    return 0


async def _execute(plan: Any, store: Any, args: argparse.Namespace) -> Any:
    from explaincheck.core.backends.llm import Decoding
    from explaincheck.core.backends.registry import BackendContext, create_backend
    from explaincheck.core.campaign.progress import ProgressEvents
    from explaincheck.core.campaign.runner import CampaignRunner
    from explaincheck.core.cli.progress_bar import TerminalProgress

    campaign = plan.campaign
    context = BackendContext(
        oracle=plan.oracle,
        environment=plan.environment,
        decoding=Decoding(campaign.seed, campaign.repeat, campaign.repeat_temperature),
        concurrency=args.concurrency,
        timeout=args.timeout,
        ollama_hosts=tuple(args.ollama_host),
    )
    backends = {spec: create_backend(spec, context) for spec in campaign.llms}
    events = ProgressEvents()
    events.subscribe(TerminalProgress())
    runner = CampaignRunner(plan, store, backends, events=events)
    loop = asyncio.get_running_loop()
    interrupts = _on_interrupt(loop, runner)
    try:
        return await runner.run()
    finally:
        interrupts()
        for backend in backends.values():
            await backend.close()
        await context.close()


def _on_interrupt(loop: asyncio.AbstractEventLoop, runner: Any) -> Any:
    """First Ctrl-C (or SIGTERM): stop cleanly. A second Ctrl-C: the default (KeyboardInterrupt)."""

    def first() -> None:
        print("\nexplaincheck run: stopping (Ctrl-C again to force)", file=sys.stderr)
        runner.cancel()
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, first)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # Windows or not the main thread: KeyboardInterrupt ends the run instead

    def remove() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return remove


def _describe(plan: Any, db: str) -> None:
    campaign = plan.campaign
    cases = sum(plan.cases.values())
    skipped = "".join(f"\n  {c}: not applicable ({why})" for c, why in plan.skipped.items())
    asked = len({e.case.key for e in plan.executions})
    if asked != cases:  # wordings and metamorphic variants multiply the prompts of a case
        cases = f"{cases} test cases ({asked} prompts with wordings/variants)"
    else:
        cases = f"{cases} test cases"
    print(
        f"explaincheck run: {plan.environment_name}: {cases} x {len(campaign.llms)}"
        f" LLM(s) x {campaign.repeat} repeat(s) = {plan.total} executions into {db}{skipped}",
        file=sys.stderr,
    )


def _summary(plan: Any, store: Any) -> None:
    """Per LLM and category: pass / fail / invalid / error and the score of this plan."""
    keys = {e.key for e in plan.executions}
    counts: Counter[tuple[str, str, str]] = Counter()
    for row in store.iter_executions():
        if row["exec_key"] in keys:
            counts[(row["llm"], row["category"], row["verdict"])] += 1
    rows = sorted({(llm, category) for llm, category, _ in counts})
    if not rows:
        return
    width = max(len(llm) for llm, _ in rows)
    print(f"{'llm':<{width}}  {'category':<18} pass  fail  invalid  error  score")
    for llm, category in rows:
        c = {v: counts[(llm, category, v)] for v in ("pass", "fail", "invalid", "error")}
        graded = c["pass"] + c["fail"] + c["invalid"]
        score = f"{c['pass'] / graded:.2f}" if graded else "-"
        print(
            f"{llm:<{width}}  {category:<18} {c['pass']:>4}  {c['fail']:>4}  {c['invalid']:>7}"
            f"  {c['error']:>5}  {score:>5}"
        )

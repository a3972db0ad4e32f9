"""``explaincheck run``: plan a campaign, ask the LLMs, grade and store every execution.

Why it resumes by default: the same command on the same database continues a stopped campaign
(finished executions kept, ``error`` ones retried), so Ctrl-C or a crash costs only the requests
that were in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import signal
import sys
from collections import Counter
from typing import Any

from explaincheck.core.cli.oracle_command import positive_int
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.follow_ups import follow_up_help
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.terminal_text import safe_terminal

EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
EXIT_TERMINATED = 143  # SIGTERM (128 + SIGTERM)


def _category_ids() -> str:
    """The category ids by dimension, from the registry (so a new category lists itself)."""
    by_dimension: dict[str, list[str]] = {}
    for category_id, category in CATEGORIES.items():
        by_dimension.setdefault(category.dimension, []).append(category_id)
    return "\n".join(f"  {dim:<11} {', '.join(ids)}" for dim, ids in by_dimension.items())


NAME = "run"
HELP = f"""Run a test campaign: select test cases per category, ask every LLM, grade each reply
against the oracle and store it at once in a SQLite database. Running the same command again on
the same database continues where it stopped (errors are retried, nothing is duplicated).

LLM specs: random, oracle, ollama:MODEL (host from --ollama-host or OLLAMA_HOST),
ollama:MODEL@URL, openai:MODEL[@BASE_URL] (any OpenAI-compatible server: vLLM, SGLang,
llama-server, LM Studio; server from --openai-base-url or OPENAI_BASE_URL, key from
OPENAI_API_KEY, never stored), local:gemma3-270m, local:smollm2-135m, local:PATH.gguf (any GGUF
file through the bundled llama.cpp; binding from --llama-binding or EXPLAINCHECK_LLAMA_BINDING,
default the prebuilt xllamacpp), and the reference explainers with known flaws noisy:Q,
flaw:myopic:K, flaw:determinised, flaw:distance, flaw:danger-blind (docs/fault-detection.md).
OLLAMA_API_KEY is sent as a bearer key when set; a URL's user:password@ is refused and its
query (?token=...) dropped, so no secret is stored.

Category ids for --categories (by dimension; the method is described in docs/method.md):
{_category_ids()}

examples:
  explaincheck run --env frozen_lake --llm oracle --llm random --budget 20 --selection both
  explaincheck run --env frozen_lake --llm ollama:gemma3:1b --db gemma.sqlite
  explaincheck run --env model.prism --const N=4 --llm ollama:qwen3:8b \\
      --ollama-host http://gpu1:11434 --ollama-host http://gpu2:11434 --concurrency 2
  explaincheck run --env frozen_lake --llm local:gemma3-270m --budget 3
  explaincheck run --env frozen_lake --llm oracle --llm random --categories factors \\
      --behavioural
  explaincheck run --env frozen_lake --llm openai:Qwen/Qwen2.5-7B-Instruct \\
      --openai-base-url http://gpu1:8000/v1 --price Qwen/Qwen2.5-7B-Instruct=0.05/0.1
  explaincheck run --config campaign.toml --shard 2/3 --db shard2.sqlite
"""


def add_satisfy_arguments(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--satisfy-rule`` and ``--satisfy-tolerance`` (``run`` and ``regrade`` share them)."""
    parser.add_argument(
        "--satisfy-rule",
        default="absolute",
        choices=["absolute", "half"],
        help="satisfy passes when |p - V| <= the tolerance (absolute) or p and V lie on the"
        f" same side of 1/2 (half){note} (absolute)",
    )
    parser.add_argument(
        "--satisfy-tolerance",
        type=float,
        default=0.05,
        metavar="T",
        help="tolerance of the absolute satisfy rule, from 0 to 1 (0.05)",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--env",
        default=None,
        metavar="ENV|MODEL",
        help="a built-in environment id or a .prism file (required here or in --config)",
    )
    parser.add_argument(
        "--llm", action="append", default=None, metavar="SPEC", help="LLM under test (repeatable)"
    )
    parser.add_argument(
        "--categories",
        default="default",
        metavar="default|all|ID,ID",
        help=(
            "categories to test, ids listed above (default: every one that applies here, less "
            "a safer that repeats more_promising; all: every one that applies)"
        ),
    )
    parser.add_argument("--budget", type=int, default=20, help="test cases per category (20)")
    parser.add_argument(
        "--selection",
        default="prioritized",
        type=_selection,
        choices=["prioritized", "random", "both"],
        help="highest-δ cases, a seeded random draw, or both (prioritized; the spelling"
        " prioritised is accepted too and stored as prioritized)",
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
    parser.add_argument(
        "--db", default="results.sqlite", help="results database (default: results.sqlite)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=4, help="requests in flight per LLM, per Ollama host (4)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds one request may take, from sending it to its last word (120): time it"
        " waits in a server's queue counts, so keep --concurrency within the server's slots",
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
    add_satisfy_arguments(parser, "; stored replies can be re-graded later")
    parser.add_argument(
        "--retries",
        type=int,
        default=3,
        help="times a failed or timed-out request is tried again, with growing pauses (3)",
    )
    parser.add_argument(
        "--llama-binding",
        choices=["xllamacpp", "llama-cpp-python"],
        default=None,
        help="the llama.cpp binding of the local models (default: EXPLAINCHECK_LLAMA_BINDING,"
        " else the prebuilt xllamacpp; llama-cpp-python is the extra local-compiled)",
    )
    parser.add_argument(
        "--state-limit",
        type=positive_int,
        default=None,
        help="refuse models with more states (default 2,000,000)",
    )
    parser.add_argument(
        "--behavioural",
        action="store_true",
        help=follow_up_help(),  # from the registry: the categories that have follow-ups
    )
    from explaincheck.core.cli.oracle_command import add_policy_arguments

    add_policy_arguments(parser)  # --policy FILE: the policy categories ask about its choices
    add_rule_arguments(parser)
    add_scale_arguments(parser)


def _selection(text: str) -> str:
    from explaincheck.core.campaign.plan import selection_name

    return selection_name(text)


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    """The selection rules of docs/method.md §4 (``taxonomy.case_rules``)."""
    parser.add_argument(
        "--keep-do-nothing",
        action="store_true",
        help="offer do-nothing actions (every outcome is the state itself, always among the"
        " best) in best/worst/ranking questions; left out by default",
    )
    parser.add_argument(
        "--min-gap",
        type=float,
        default=0.0,
        metavar="G",
        help="leave out pairs, rankings and best/worst cases whose deciding value difference is"
        " below G (0: keep the paper's δ, no filtering)",
    )
    parser.add_argument(
        "--balance",
        default="on",
        choices=["on", "off"],
        help="yes/no categories: as many yes- as no-cases, as the paper's text says (on), or"
        " drawn from all candidates (off)",
    )


def add_scale_arguments(parser: argparse.ArgumentParser) -> None:
    """Campaign files, shards, OpenAI-compatible servers, prices and the cost limit."""
    from explaincheck.core.cli.campaign_file import track_given

    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="a campaign file (TOML): every option of this command as a key, e.g."
        ' budget = 10, llm = ["random", "oracle"]; options given here override it',
    )
    parser.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help="run only the I-th of N deterministic parts of the plan (1/3, 2/3, 3/3); join the"
        " databases with explaincheck merge",
    )
    parser.add_argument(
        "--openai-base-url",
        action="append",
        default=[],
        metavar="URL",
        help="OpenAI-compatible server for openai:MODEL (repeatable: requests spread over the"
        " servers; default OPENAI_BASE_URL, else https://api.openai.com/v1)",
    )
    parser.add_argument(
        "--max-tokens",
        type=positive_int,
        default=256,
        help="output cap sent to OpenAI-compatible servers (256, as the local models; a"
        " reasoning model thinking aloud may need more)",
    )
    parser.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="MODEL=IN/OUT",
        help="money per million prompt/completion tokens of a model (repeatable), e.g."
        " gpt-4o-mini=0.15/0.6; kept with the campaign for results and reports",
    )
    parser.add_argument(
        "--prices",
        default=None,
        metavar="FILE",
        help='a price settings file ([prices] "MODEL" = "IN/OUT"; default'
        " ~/.config/explaincheck/prices.toml when it exists)",
    )
    parser.add_argument(
        "--max-cost",
        type=float,
        default=None,
        metavar="AMOUNT",
        help="stop cleanly once the replies of this campaign cost this much (needs prices)",
    )
    track_given(parser)


def campaign_from(args: argparse.Namespace) -> Any:
    from explaincheck.core.backends.ollama_hosts import configured_hosts
    from explaincheck.core.backends.registry import parse_spec
    from explaincheck.core.campaign.settings import campaign_from_settings

    if not args.env:
        raise ExplaincheckError("--env is required (on the command line or in --config)")
    if not args.llm:
        raise ExplaincheckError("--llm is required (on the command line or in --config)")
    for spec in args.llm:
        parse_spec(spec)
    configured_hosts(args.ollama_host)  # a bad --ollama-host is one clear line, before any work
    if args.concurrency < 1:
        raise ExplaincheckError(f"--concurrency must be at least 1 (got {args.concurrency})")
    if not math.isfinite(args.timeout) or args.timeout <= 0:
        raise ExplaincheckError(
            f"--timeout must be a positive number of seconds (got {args.timeout:g})"
        )
    retries = getattr(args, "retries", 3)
    if retries < 0:
        raise ExplaincheckError(f"--retries must be 0 or more (got {retries})")
    return campaign_from_settings(
        args.env,
        args.llm,
        categories=args.categories,
        budget=args.budget,
        selection=args.selection,
        repeat=args.repeat,
        seed=args.seed,
        wording=args.wording,
        metamorphic=args.metamorphic,
        keep_do_nothing=args.keep_do_nothing,
        min_gap=args.min_gap,
        balance=args.balance == "on",
        satisfy_rule=args.satisfy_rule,
        satisfy_tolerance=args.satisfy_tolerance,
        constants=args.const,
        goal_label=args.goal,
        unsafe_label=args.unsafe,
        state_limit=args.state_limit,
    )


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.campaign.finish import finish_run
    from explaincheck.core.campaign.new_database import discard_if_unused
    from explaincheck.core.campaign.plan import plan_campaign
    from explaincheck.core.campaign.session import CampaignSession
    from explaincheck.core.cli.run_scale import CostGuard, prepare_scale, scaled_plan

    stop_logging = _log_to_terminal()
    try:
        scale = prepare_scale(args)
        campaign = campaign_from(args)
        with (
            discard_if_unused(args.db),  # a refused model or LLM leaves no empty file behind
            CampaignSession.open(args.db, backend_settings(args)) as session,
        ):
            plan = scaled_plan(plan_campaign(campaign, **_with_policy(args, campaign)), scale)
            _describe(plan, args.db)
            _warn_if_large(plan, args.db)
            interrupts = _Interrupts()
            guard = CostGuard.for_plan(plan, session, scale.prices, scale.max_cost)
            outcome = asyncio.run(_execute(plan, session, interrupts, guard))
            behavioural = getattr(args, "behavioural", False)
            finished = asyncio.run(finish_run(plan, session, outcome, behavioural=behavioural))
            _say_regraded(finished.regraded)
            _summary(plan, session.store)
            for line in finished.probe_lines():
                print(f"explaincheck run: {line}")
    finally:
        stop_logging()
    progress = outcome.progress
    if guard is not None and guard.reached:
        print(f"explaincheck run: {guard.message(progress)}", file=sys.stderr)
        return 1
    if progress.state == "cancelled":
        print(
            f"explaincheck run: {interrupts.word}; {progress.done} of {progress.total} executions"
            " are stored: run the same command again to continue",
            file=sys.stderr,
        )
        return interrupts.exit_status
    if not outcome.complete:
        left = progress.total - progress.done
        for message in outcome.stopped.values():
            print(f"explaincheck run: {safe_terminal(message)}", file=sys.stderr)
        print(
            f"explaincheck run: {left} executions have no result yet ({progress.errors} ended in"
            " error): run the same command again to retry them",
            file=sys.stderr,
        )
        return 1
    return 0


def _with_policy(args: argparse.Namespace, campaign: Any) -> dict[str, Any]:
    """With ``--policy FILE``: the campaign's oracle with the policy's induced chain attached
    (its model hash names the policy, so another policy is another campaign)."""
    if not getattr(args, "policy", None):
        return {}
    from explaincheck.core.campaign.plan import load_environment, oracle_for
    from explaincheck.core.policy.attach import attach_file

    environment = load_environment(campaign)
    oracle = oracle_for(campaign, environment)
    attached = attach_file(oracle, args.policy, args.policy_default or "")
    return {"environment": environment, "oracle": attached}


class _SafeFormatter(logging.Formatter):
    """Log lines carry server error texts: control characters are shown, never obeyed."""

    def format(self, record: logging.LogRecord) -> str:
        return safe_terminal(super().format(record))


def _log_to_terminal() -> Any:
    """Warnings of the campaign on stderr, made safe; returns the function that removes the
    handler again (so in-process callers, such as tests, are left as they were)."""
    handler = logging.StreamHandler()
    handler.setFormatter(_SafeFormatter("explaincheck run: %(message)s"))
    handler.setLevel(logging.WARNING)
    logger = logging.getLogger("explaincheck")
    logger.addHandler(handler)
    return lambda: logger.removeHandler(handler)


def backend_settings(args: argparse.Namespace) -> Any:
    """The backend settings the command line gives (``--ollama-host``, ``--timeout``, ...)."""
    from explaincheck.core.campaign.session import BackendSettings

    return BackendSettings(
        ollama_hosts=tuple(args.ollama_host),
        timeout=args.timeout,
        concurrency=args.concurrency,
        retries=getattr(args, "retries", 3),
        llama_binding=getattr(args, "llama_binding", None),
        openai_hosts=tuple(getattr(args, "openai_base_url", None) or ()),
        max_tokens=getattr(args, "max_tokens", None) or 256,
    )


async def _execute(
    plan: Any, session: Any, interrupts: _Interrupts | None = None, guard: Any = None
) -> Any:
    from explaincheck.core.campaign.eta import EtaEstimator, left_per_llm
    from explaincheck.core.campaign.progress import ProgressEvents
    from explaincheck.core.cli.progress_bar import TerminalProgress

    events = ProgressEvents()
    bar = TerminalProgress()
    events.subscribe(bar)

    def started(backends: Any) -> None:  # the per-LLM ETA, as in the window
        bar.estimator = EtaEstimator.start(*left_per_llm(plan, session.store.stored(), backends))

    if guard is not None:
        events.subscribe(guard)
    loop = asyncio.get_running_loop()
    remove = (interrupts or _Interrupts()).install(loop, session)
    try:
        return await session.run(plan, events=events, started=started)
    finally:
        remove()


class _Interrupts:
    """First Ctrl-C or SIGTERM: stop cleanly, keeping what finished. A second Ctrl-C: the
    default (KeyboardInterrupt). Remembers the signal for the exit status (130 or 143)."""

    def __init__(self) -> None:
        self.received: int | None = None

    @property
    def exit_status(self) -> int:
        return EXIT_TERMINATED if self.received == signal.SIGTERM else EXIT_INTERRUPTED

    @property
    def word(self) -> str:
        return "terminated" if self.received == signal.SIGTERM else "interrupted"

    def install(self, loop: asyncio.AbstractEventLoop, session: Any) -> Any:
        def first(sig: int) -> None:
            if self.received is None:
                self.received = sig
            if sig == signal.SIGINT:
                print("\nexplaincheck run: stopping (Ctrl-C again to force)", file=sys.stderr)
                loop.remove_signal_handler(signal.SIGINT)
                signal.signal(signal.SIGINT, signal.default_int_handler)
            session.cancel()

        installed = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, first, sig)
                installed.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # Windows or not the main thread: KeyboardInterrupt ends the run instead

        def remove() -> None:
            for sig in installed:
                loop.remove_signal_handler(sig)

        return remove


def _say_regraded(summary: Any) -> None:
    """Rows stored by an earlier run under other grading settings were graded again (from the
    stored replies, by ``campaign.finish``), so one table never mixes two satisfy rules."""
    if summary.graded:
        print(
            f"explaincheck run: {summary.graded} stored executions re-graded under the new"
            f" satisfy settings ({summary.changed} changed verdict)",
            file=sys.stderr,
        )


def _describe(plan: Any, db: str) -> None:
    from explaincheck.core.cli.skip_words import skip_line
    from explaincheck.core.plural import counted

    campaign = plan.campaign
    cases = sum(plan.cases.values())
    skipped = "".join(f"\n  {skip_line(plan, c, why)}" for c, why in plan.skipped.items())
    asked = len({e.case.key for e in plan.executions})
    if asked != cases:  # wordings and metamorphic variants multiply the prompts of a case
        cases = f"{counted(cases, 'test case')} ({asked} prompts with wordings/variants)"
    else:
        cases = counted(cases, "test case")
    text = (
        f"explaincheck run: {plan.environment_name}: {cases} x {counted(len(campaign.llms), 'LLM')}"
        f" x {counted(campaign.repeat, 'repeat')} = {counted(plan.total, 'execution')}"
        f" into {db}{skipped}"
    )
    print(safe_terminal(text), file=sys.stderr)
    for category_id, why in getattr(plan, "degenerate", {}).items():
        line = f"explaincheck run: warning: {category_id} measures nothing here: {why}"
        print(safe_terminal(line), file=sys.stderr)


def _warn_if_large(plan: Any, db: str) -> None:
    from explaincheck.core.campaign.plan_size import size_warning

    warning = size_warning(plan, db)
    if warning:
        print(safe_terminal(f"explaincheck run: {warning}"), file=sys.stderr)


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
        line = (
            f"{llm:<{width}}  {category:<18} {c['pass']:>4}  {c['fail']:>4}  {c['invalid']:>7}"
            f"  {c['error']:>5}  {score:>5}"
        )
        print(safe_terminal(line))

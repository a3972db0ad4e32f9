"""``explaincheck run``: plan a campaign, ask the LLMs, grade and store every execution.

Why it resumes by default: the same command on the same database continues a stopped campaign
(finished executions kept, ``error`` ones retried), so Ctrl-C or a crash costs only the requests
that were in flight. The options are ``run_arguments``; the run is the one run sequence of
every front end (``workspace.campaign.run_campaign``), told through ``TerminalHooks``: the plan
in words, the progress bar, Ctrl-C, the summary and the cost.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections import Counter
from collections.abc import Callable, Sequence, Set

from explaincheck.core.backends.native_worker import WORKER
from explaincheck.core.campaign.cost_limit import keys_tally
from explaincheck.core.campaign.eta import EtaEstimator
from explaincheck.core.campaign.plan import Campaign, Plan, load_environment, oracle_for
from explaincheck.core.campaign.prices import Price
from explaincheck.core.campaign.progress import Progress
from explaincheck.core.campaign.regrade import RegradeSummary
from explaincheck.core.campaign.session import CampaignSession
from explaincheck.core.cli.progress_bar import TerminalProgress
from explaincheck.core.cli.run_arguments import (
    add_arguments,
    backend_settings,
    campaign_from,
    campaigns_from,
    category_ids,
)
from explaincheck.core.cli.run_scale import prepare_scale
from explaincheck.core.cli.skip_words import skip_line
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.plural import counted
from explaincheck.core.store import Store
from explaincheck.core.terminal_text import safe_terminal
from explaincheck.core.workspace.campaign import CampaignRequest, Costs
from explaincheck.core.workspace.matrix import MatrixHooks, MatrixRun, run_matrix

EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
EXIT_TERMINATED = 143  # SIGTERM (128 + SIGTERM)

__all__ = ["HELP", "NAME", "add_arguments", "campaign_from", "run"]

NAME = "run"
HELP = f"""Run a test campaign: select test cases per category, ask every LLM, grade each reply
against the oracle and store it at once in a SQLite database. Running the same command again on
the same database continues where it stopped (errors are retried, nothing is duplicated).
Several --env (or --env all) run a whole study: one campaign per environment into the one
database, one progress bar over all of them, continued as a whole.

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
{category_ids()}

examples:
  explaincheck run --env frozen_lake --llm oracle --llm random --budget 20 --selection both
  explaincheck run --env all --llm oracle --llm random --budget 5 --db study.sqlite
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


def run(args: argparse.Namespace) -> int:
    stop_logging = _log_to_terminal()
    try:
        scale = prepare_scale(args)
        campaigns = campaigns_from(args)
        environment, oracle = _model(args, campaigns[0])
        options = {**scale.options, "env": _env_option(campaigns)}
        requests = [
            CampaignRequest(
                campaign,
                args.db,
                environment,
                oracle,
                backend_settings(args),
                behavioural=getattr(args, "behavioural", False),
                costs=Costs(scale.prices, scale.max_cost),
                shard=scale.shard,
                run_options=options,
            )
            for campaign in campaigns
        ]
        hooks = TerminalHooks(args.db, scale.prices)
        ran = asyncio.run(run_matrix(requests, hooks))
    finally:
        stop_logging()
    assert ran is not None  # the terminal never declines a large plan (it warns)
    status = _ending(ran, hooks.interrupts)
    if hooks.interrupts.received is not None and WORKER.busy():
        # A local generation (or model load) is still running inside llama.cpp, which Python
        # cannot interrupt: what is stored is committed and every line written, so end the
        # process now rather than wait for it (Ctrl-C returns at once, not after 85 s).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


def _env_option(campaigns: tuple[Campaign, ...]) -> str | list[str]:
    """``env`` as the campaign file of this run holds it (``results --config`` writes it back):
    one environment's id, or the list a matrix ran, ``all`` spelt out."""
    envs = [campaign.environment for campaign in campaigns]
    return envs[0] if len(envs) == 1 else envs


def _ending(ran: MatrixRun, interrupts: _Interrupts) -> int:
    """The last lines and the exit status: 0 complete, 1 stopped at the cost limit or with
    executions left, 130/143 interrupted."""
    outcome = ran.outcome
    progress = outcome.progress
    if ran.guard is not None and ran.cost_stopped:
        print(f"explaincheck run: {ran.guard.message(progress)}", file=sys.stderr)
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


def _model(
    args: argparse.Namespace, campaign: Campaign
) -> tuple[Environment | None, OracleResult | None]:
    """With ``--policy FILE``: the campaign's model with the policy's induced chain attached
    to its oracle (its model hash names the policy, so another policy is another campaign);
    else (None, None): the run sequence loads the model."""
    if not getattr(args, "policy", None):
        return None, None
    # deferred: the policy chain brings scipy, seconds of import that only --policy needs
    from explaincheck.core.policy.attach import attach_file

    environment = load_environment(campaign)
    oracle = oracle_for(campaign, environment)
    return environment, attach_file(oracle, args.policy, args.policy_default or "")


class TerminalHooks(MatrixHooks):
    """The run sequence on a terminal: the plan in words, the size warning, the progress bar
    with the per-LLM time left, Ctrl-C and SIGTERM, then the re-grade, the summary table, the
    follow-up probes and the cost. Several environments: one line per campaign's plan, one
    line for the matrix, one bar over all of it and one summary at the end."""

    def __init__(self, db: str, prices: dict[str, Price]) -> None:
        self.db = db
        self.prices = prices
        self.bar = TerminalProgress()
        self.interrupts = _Interrupts()
        self._remove: Callable[[], None] = lambda: None
        self._skips_said: set[str] = set()  # a matrix says a left-out category's line once

    def planned(self, plan: Plan) -> None:
        _describe(plan, self.db, self._skips_said)

    def matrix_planned(self, plans: Sequence[Plan]) -> None:
        if len(plans) > 1:
            total = sum(plan.total for plan in plans)
            text = (
                f"explaincheck run: {len(plans)} environments, one campaign each:"
                f" {counted(total, 'execution')} into {self.db}"
            )
            print(safe_terminal(text), file=sys.stderr)

    def large_plan(self, warning: str) -> bool:
        print(safe_terminal(f"explaincheck run: {warning}"), file=sys.stderr)
        return True

    def opened(self, session: CampaignSession) -> None:
        self._remove = self.interrupts.install(asyncio.get_running_loop(), session)

    def llm_plan(self, left: dict[str, int], concurrency: dict[str, int]) -> None:
        self.bar.estimator = EtaEstimator.start(left, concurrency)  # per LLM, as in the window

    def progress(self, progress: Progress) -> None:
        self.bar(progress)

    def matrix_ended(self, run: MatrixRun, session: CampaignSession) -> None:
        self._remove()  # the summary is printed whatever a late Ctrl-C says
        _say_regraded(run.regraded)
        _summary_of({e.key for plan in run.plans for e in plan.executions}, session.store)
        several = len(run.plans) > 1
        for ran in run.runs:
            where = f"{ran.plan.environment_name}: " if several else ""
            for line in ran.finished.probe_lines():
                print(safe_terminal(f"explaincheck run: {where}{line}"))
        for line in _cost_lines(run.plans, session.store, self.prices):
            print(f"explaincheck run: {line}", file=sys.stderr)

    def closing(self, session: CampaignSession) -> None:
        self._remove()


def _cost_lines(plans: Sequence[Plan], store: Store, prices: dict[str, Price]) -> list[str]:
    """What the campaigns' stored replies cost, as ``results`` prints it (with prices), else
    the tokens they took (none: nothing to say)."""
    keys = {e.key for plan in plans for e in plan.executions}
    tally = keys_tally(keys, store, prices)
    if tally.per_llm:
        return tally.lines()
    tokens = [0, 0]
    for row in store.iter_executions(lean=True):
        if row["exec_key"] in keys and not row.get("cached"):
            tokens[0] += row.get("prompt_tokens") or 0
            tokens[1] += row.get("completion_tokens") or 0
    if not any(tokens):
        return []
    return [
        f"tokens of the campaign: {tokens[0]:,} prompt, {tokens[1]:,} completion"
        " (no price given: --price MODEL=IN/OUT prices them)"
    ]


class _SafeFormatter(logging.Formatter):
    """Log lines carry server error texts: control characters are shown, never obeyed."""

    def format(self, record: logging.LogRecord) -> str:
        return safe_terminal(super().format(record))


def _log_to_terminal() -> Callable[[], None]:
    """Warnings of the campaign on stderr, made safe; returns the function that removes the
    handler again (so in-process callers, such as tests, are left as they were)."""
    handler = logging.StreamHandler()
    handler.setFormatter(_SafeFormatter("explaincheck run: %(message)s"))
    handler.setLevel(logging.WARNING)
    logger = logging.getLogger("explaincheck")
    logger.addHandler(handler)
    return lambda: logger.removeHandler(handler)


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

    def install(
        self, loop: asyncio.AbstractEventLoop, session: CampaignSession
    ) -> Callable[[], None]:
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


def _say_regraded(summary: RegradeSummary) -> None:
    """Rows stored by an earlier run under other grading settings were graded again (from the
    stored replies, by ``campaign.finish``), so one table never mixes two satisfy rules."""
    if summary.graded:
        print(
            f"explaincheck run: {summary.graded} stored executions re-graded under the new"
            f" satisfy settings ({summary.changed} changed verdict)",
            file=sys.stderr,
        )


def _describe(plan: Plan, db: str, said: set[str] | None = None) -> None:
    """The plan in words; ``said``: the left-out lines an earlier environment of the matrix
    printed (the same words in every environment, such as the policy categories without a
    policy, are said once, then counted)."""
    campaign = plan.campaign
    count = sum(plan.cases.values())
    lines = {c: skip_line(plan, c, why) for c, why in plan.skipped.items()}
    said = set() if said is None else said
    again = [c for c, line in lines.items() if line in said]
    shown = [line for line in lines.values() if line not in said]
    if again:
        shown.append(f"{', '.join(again)}: left out as above")
    said.update(lines.values())
    skipped = "".join(f"\n  {line}" for line in shown)
    asked = len({e.case.key for e in plan.executions})
    cases = counted(count, "test case")
    if asked != count:  # wordings and metamorphic variants multiply the prompts of a case
        cases += f" ({asked} prompts with wordings/variants)"
    text = (
        f"explaincheck run: {plan.environment_name}: {cases} x {counted(len(campaign.llms), 'LLM')}"
        f" x {counted(campaign.repeat, 'repeat')} = {counted(plan.total, 'execution')}"
        f" into {db}{skipped}"
    )
    print(safe_terminal(text), file=sys.stderr)
    for category_id, why in getattr(plan, "degenerate", {}).items():
        line = f"explaincheck run: warning: {category_id} measures nothing here: {why}"
        print(safe_terminal(line), file=sys.stderr)


def _summary(plan: Plan, store: Store) -> None:
    """Per LLM and category: pass / fail / invalid / error and the score of this plan."""
    _summary_of({e.key for e in plan.executions}, store)


def _summary_of(keys: Set[str], store: Store) -> None:
    """Per LLM and category: pass / fail / invalid / error and the score of these executions
    (every environment of a matrix together); an ``uncertain`` column too when a verdict could
    flip inside the oracle's intervals (left out of the score, as everywhere)."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for row in store.iter_executions():
        if row["exec_key"] in keys:
            counts[(row["llm"], row["category"], row["verdict"])] += 1
    rows = sorted({(llm, category) for llm, category, _ in counts})
    if not rows:
        return
    uncertain = any(verdict == "uncertain" for _, _, verdict in counts)
    width = max(len(llm) for llm, _ in rows)
    extra = "  uncertain" if uncertain else ""
    print(f"{'llm':<{width}}  {'category':<18} pass  fail  invalid  error{extra}  score")
    for llm, category in rows:
        c = {v: counts[(llm, category, v)] for v in ("pass", "fail", "invalid", "error")}
        graded = c["pass"] + c["fail"] + c["invalid"]
        score = f"{c['pass'] / graded:.2f}" if graded else "-"
        column = f"  {counts[(llm, category, 'uncertain')]:>9}" if uncertain else ""
        line = (
            f"{llm:<{width}}  {category:<18} {c['pass']:>4}  {c['fail']:>4}  {c['invalid']:>7}"
            f"  {c['error']:>5}{column}  {score:>5}"
        )
        print(safe_terminal(line))

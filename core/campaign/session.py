"""One campaign session: backends, the results store and the runner, set up and torn down in one
place for every front end.

Why: the command line's ``run``, the GUI's campaign controller and the Teach tab's "ask live" all
need the same steps: a ``BackendContext`` from the user's settings (Ollama hosts, timeout,
concurrency, retries), one backend per LLM spec, ``prepare()`` before the first question, and
``close()`` of every backend and shared host pool afterwards, however the run ends (finished,
cancelled, crashed). Written once here, a new answerer or a new setting reaches all three.

- ``CampaignSession`` holds one results database (``Store``) and the backend settings;
  ``run(plan)`` creates the plan's backends, runs them with ``CampaignRunner`` (which owns the
  reply cache in the same database) and closes them. ``cancel()`` may be called from any thread,
  also before ``run`` has started. Use it on one thread (SQLite connections are per thread).
- ``ask_live(...)`` asks one backend one test case: renders the prompt, asks, grades, and returns
  a plain ``LiveAnswer``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from explaincheck.core.backends.base import Backend, BackendError, bounded_reply
from explaincheck.core.backends.llm import Decoding, LLMBackend
from explaincheck.core.backends.registry import BackendContext, create_backend
from explaincheck.core.campaign.plan import Plan
from explaincheck.core.campaign.progress import ProgressEvents
from explaincheck.core.campaign.runner import CampaignRunner, RunOutcome
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import GradingSettings, TestCase
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.prompts import render_prompt

log = logging.getLogger("explaincheck.campaign")


@dataclass(frozen=True)
class BackendSettings:
    """How backends are created: the user's Ollama hosts (empty: ``OLLAMA_HOST`` or the local
    default), the seconds to wait for one reply, requests in flight per LLM and per host, and
    how often a failed request is tried again."""

    ollama_hosts: tuple[str, ...] = ()
    timeout: float = 120.0
    concurrency: int = 4
    retries: int = 3
    llama_binding: str | None = None  # the local models' llama.cpp binding; None: automatic
    openai_hosts: tuple[str, ...] = ()  # base URLs of OpenAI-compatible servers
    max_tokens: int = 256  # output cap of OpenAI-compatible, Ollama and local LLMs (--max-tokens)


def backend_context(
    settings: BackendSettings,
    oracle: OracleResult | None,
    environment: Environment | None,
    decoding: Decoding | None = None,
) -> BackendContext:
    """The registry's context for ``settings`` over one oracle and environment."""
    return BackendContext(
        oracle=oracle,
        environment=environment,
        decoding=decoding or Decoding(),
        concurrency=settings.concurrency,
        timeout=settings.timeout,
        ollama_hosts=tuple(settings.ollama_hosts),
        retries=settings.retries,
        llama_binding=settings.llama_binding,
        openai_hosts=tuple(settings.openai_hosts),
        max_tokens=settings.max_tokens,
    )


@asynccontextmanager
async def open_backends(
    specs: Iterable[str], context: BackendContext
) -> AsyncIterator[dict[str, Backend]]:
    """One backend per spec; on leaving, every backend made and the context's host pools are
    closed, also when making a later one failed or the body raised or was cancelled."""
    backends: dict[str, Backend] = {}
    try:
        for spec in specs:
            backends[spec] = create_backend(spec, context)
        yield backends
    finally:
        for spec, backend in backends.items():
            try:
                await backend.close()
            except Exception:  # one failing close must not leave the others open
                log.exception("closing %s failed", spec)
        await context.close()


class CampaignSession:
    """Runs plans into one results database with one set of backend settings."""

    def __init__(
        self, store: Store, settings: BackendSettings | None = None, *, owns_store: bool = False
    ) -> None:
        self.store = store
        self.settings = settings or BackendSettings()
        self._owns_store = owns_store
        self._lock = threading.Lock()
        self._runner: CampaignRunner | None = None
        self._cancelled = False

    @classmethod
    def open(cls, db_path: str | Path, settings: BackendSettings | None = None) -> CampaignSession:
        """A session on the database at ``db_path`` (created if missing); ``close()`` or the
        ``with`` block closes it again."""
        return cls(Store.open(db_path), settings, owns_store=True)

    def close(self) -> None:
        if self._owns_store:
            self.store.close()

    def __enter__(self) -> CampaignSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- control ------------------------------------------------------------------------------

    def cancel(self) -> None:
        """Stop the running plan cleanly (stored results stay); from any thread, and before
        ``run`` has started (the run then stops at once)."""
        with self._lock:
            self._cancelled = True
            runner = self._runner
        if runner is not None:
            runner.cancel_threadsafe()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    # -- running ------------------------------------------------------------------------------

    async def run(
        self,
        plan: Plan,
        *,
        events: ProgressEvents | None = None,
        started: Callable[[Mapping[str, Backend]], None] | None = None,
    ) -> RunOutcome:
        """Create the plan's backends, execute everything not yet stored, close the backends.
        ``started`` sees the backends before the first question (e.g. for their concurrency)."""
        campaign = plan.campaign
        decoding = Decoding(campaign.seed, campaign.repeat, campaign.repeat_temperature)
        context = backend_context(self.settings, plan.oracle, plan.environment, decoding)
        async with open_backends(campaign.llms, context) as backends:
            if started is not None:
                started(backends)
            runner = CampaignRunner(plan, self.store, backends, events=events)
            with self._lock:
                self._runner = runner
                if self._cancelled:
                    runner.cancel_threadsafe()  # before run: it stops as soon as it starts
            try:
                return await runner.run()
            finally:
                with self._lock:
                    self._runner = None


@dataclass(frozen=True)
class LiveAnswer:
    """One question asked live: what was sent, what came back, and its grade."""

    spec: str
    prompt: str
    reply: str
    thinking: str
    verdict: str
    reason: str
    host: str = ""
    latency: float = 0.0


async def ask_live(
    spec: str,
    case: TestCase,
    oracle: OracleResult,
    environment: Environment,
    settings: BackendSettings | None = None,
    grading: GradingSettings | None = None,
) -> LiveAnswer:
    """Ask the backend of ``spec`` the prompt of ``case`` once, and grade the reply. A backend
    that cannot answer (no server, model not pulled, no reply after retries) raises an
    ``ExplaincheckError`` with one line saying why; the backend is closed in every case."""
    prompt = render_prompt(case, oracle, environment)
    context = backend_context(settings or BackendSettings(), oracle, environment)
    async with open_backends((spec,), context) as backends:
        backend = backends[spec]
        try:
            if isinstance(backend, LLMBackend):
                await backend.prepare()
            reply = bounded_reply(await backend.answer(prompt, case))
        except BackendError as error:
            raise ExplaincheckError(str(error)) from None
    grade = grade_reply(case, reply.text, oracle, grading)
    return LiveAnswer(
        spec=backend.spec,
        prompt=prompt.text,
        reply=reply.text,
        thinking=reply.thinking,
        verdict=grade.verdict,
        reason=grade.reason,
        host=reply.host,
        latency=reply.latency,
    )

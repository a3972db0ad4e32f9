"""Running a campaign for the window, on its own thread with its own asyncio loop.

Why a separate thread: planning (case selection, prompt rendering), the SQLite commit after
every graded execution and the backends' own work would otherwise all run on the GUI thread.
The core runner reports through plain callbacks (``ProgressEvents``); they are forwarded to the
GUI thread by Qt signals, which queue across threads. Stop cancels the runner thread-safely;
everything graded so far stays stored, and running the same campaign again resumes it.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.gui.results_data import row_of
from PySide6.QtCore import QObject, Signal


@dataclass(frozen=True)
class BackendSettings:
    """How backends are created (from the Settings dialog and the campaign panel)."""

    ollama_hosts: tuple[str, ...] = ()
    timeout: float = 120.0
    concurrency: int = 4


class CampaignController(QObject):
    """Start/stop one campaign at a time; signals arrive on the GUI thread."""

    planned = Signal(int, object)  # total executions, {category: why skipped}
    llm_plan = Signal(object, object)  # {llm: executions left}, {llm: concurrency} (for the ETA)
    progress = Signal(object)  # core.campaign.progress.Progress
    row = Signal(object)  # one graded execution as a row dict
    finished = Signal(object)  # RunOutcome
    failed = Signal(object)  # exception
    running_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self._runner: Any = None
        self._stop_requested = False
        self._lock = threading.Lock()
        # True from start() until the worker's last signal has been delivered on the GUI
        # thread (so "not running" implies its rows and its ``finished`` were handled)
        self._running = False
        self.running_changed.connect(self._set_running)

    @property
    def running(self) -> bool:
        return self._running

    def _set_running(self, running: bool) -> None:
        self._running = running

    def start(
        self,
        campaign: Any,
        db_path: str,
        environment: Environment,
        oracle: OracleResult,
        backends: BackendSettings,
        behavioural: bool = False,
    ) -> None:
        """Plan and run ``campaign`` (a ``core.campaign.plan.Campaign``) into ``db_path``;
        ``behavioural``: then ask the behavioural probes of its factors cases."""
        if self.running:
            raise RuntimeError("a campaign is already running")
        self._stop_requested = False
        self._running = True
        self._thread = threading.Thread(
            target=self._thread_main,
            args=(campaign, db_path, environment, oracle, backends, behavioural),
            name="explaincheck-campaign",
            daemon=True,
        )
        self.running_changed.emit(True)
        self._thread.start()

    def stop(self) -> None:
        """Cancel cleanly: in-flight requests are abandoned, stored results kept."""
        with self._lock:
            self._stop_requested = True
            if self._runner is not None:
                self._runner.cancel_threadsafe()

    def wait(self, timeout: float | None = None) -> None:
        """Join the worker thread (for shutdown)."""
        if self._thread is not None:
            self._thread.join(timeout)

    # -- worker thread ---------------------------------------------------------------------
    def _thread_main(
        self, campaign, db_path, environment, oracle, backends, behavioural=False
    ) -> None:
        try:
            outcome = asyncio.run(
                self._run(campaign, db_path, environment, oracle, backends, behavioural)
            )
        except BaseException as error:  # reported in the window, never a crash
            self.failed.emit(error)
        else:
            if outcome is not None:
                self.finished.emit(outcome)
        finally:
            with self._lock:
                self._runner = None
            self.running_changed.emit(False)

    async def _run(
        self, campaign, db_path, environment, oracle, settings: BackendSettings, behavioural=False
    ):
        from explaincheck.core.backends.llm import Decoding
        from explaincheck.core.backends.registry import BackendContext, create_backend
        from explaincheck.core.campaign.plan import plan_campaign
        from explaincheck.core.campaign.progress import ProgressEvents
        from explaincheck.core.campaign.runner import CampaignRunner
        from explaincheck.core.store import Store

        plan = plan_campaign(campaign, environment=environment, oracle=oracle)
        self.planned.emit(plan.total, dict(plan.skipped))
        context = BackendContext(
            oracle=plan.oracle,  # carries the factor truth when factors is asked
            environment=environment,
            decoding=Decoding(
                seed=campaign.seed,
                repeats=campaign.repeat,
                repeat_temperature=campaign.repeat_temperature,
            ),
            concurrency=settings.concurrency,
            timeout=settings.timeout,
            ollama_hosts=settings.ollama_hosts,
        )
        backends = {spec: create_backend(spec, context) for spec in campaign.llms}
        events = ProgressEvents()
        events.subscribe(self._on_progress)
        store = Store.open(db_path)
        try:
            self.llm_plan.emit(*left_per_llm(plan, store.stored(), backends))
            runner = CampaignRunner(plan, store, backends, events=events)
            with self._lock:
                self._runner = runner
                if self._stop_requested:
                    runner.cancel()
            outcome = await runner.run()
            if behavioural and outcome.complete and "factors" in campaign.categories:
                await self._behavioural(plan, store, settings)
            return outcome
        finally:
            for backend in backends.values():
                await backend.close()
            await context.close()
            store.close()

    @staticmethod
    async def _behavioural(plan, store, settings: BackendSettings) -> int:
        """The behavioural check of the factors cases, as ``run --behavioural`` asks it."""
        from argparse import Namespace

        from explaincheck.core.factors.run import behavioural

        args = Namespace(
            concurrency=settings.concurrency,
            timeout=settings.timeout,
            ollama_host=list(settings.ollama_hosts),
        )
        return await behavioural(plan, store, args)

    def _on_progress(self, progress) -> None:
        """Called on the worker's loop: forward to the GUI thread (signals queue)."""
        if progress.last is not None:
            self.row.emit(row_of(progress.last))
        self.progress.emit(progress)


def left_per_llm(plan, stored: dict, backends: dict) -> tuple[dict[str, int], dict[str, int]]:
    """Executions each LLM still has to answer (stored non-error ones are skipped on resume),
    and each LLM's concurrency: what the per-LLM ETA needs."""
    from explaincheck.core.taxonomy.base import ERROR

    left = {llm: 0 for llm in plan.campaign.llms}
    for execution in plan.executions:
        verdict = stored.get(execution.key, (None, 0))[0]
        if verdict is None or verdict == ERROR:
            left[execution.llm] = left.get(execution.llm, 0) + 1
    concurrency = {llm: int(getattr(b, "concurrency", 1) or 1) for llm, b in backends.items()}
    return left, concurrency

"""Asking one test case live for the Teach tab, with the user's backend settings.

Why a controller: the view only says which LLM and which case; this asks the core's
``ask_live`` (prompt, backend, grade) with the Ollama host(s), timeout and concurrency the user
set, as a task on the window's qasync loop. The request is network-bound, so it needs no thread:
waiting on a slow LLM holds neither the GUI nor the worker threads that layouts and SQLite reads
use. A new question cancels the one still in flight (its backend is closed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from explaincheck.core.campaign.session import BackendSettings, LiveAnswer, ask_live
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.gui.support.tasks import Tasks

log = logging.getLogger("explaincheck.gui")


class LiveQuestionController(QObject):
    """One live question at a time; its answer or failure arrives as a signal."""

    answered = Signal(object, object)  # the TestCase asked, LiveAnswer
    failed = Signal(object, str, str)  # the TestCase asked, the LLM spec, one line saying why

    def __init__(
        self,
        tasks: Tasks,
        settings: Callable[[], BackendSettings],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.tasks = tasks
        self.settings = settings  # read at each question: the user may change them meanwhile
        self._task: asyncio.Task | None = None

    def ask(
        self, spec: str, case: TestCase, oracle: OracleResult, environment: Environment
    ) -> asyncio.Task:
        """Ask ``spec`` the prompt of ``case`` on the open model."""
        self.cancel()
        self._task = self.tasks.start(
            self._ask(spec, case, oracle, environment, self.settings()), "ask LLM"
        )
        return self._task

    def cancel(self) -> None:
        """Abandon the question in flight, if any (nothing is emitted for it)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None

    async def _ask(
        self,
        spec: str,
        case: TestCase,
        oracle: OracleResult,
        environment: Environment,
        settings: BackendSettings,
    ) -> None:
        try:
            answer: LiveAnswer = await ask_live(spec, case, oracle, environment, settings)
        except ExplaincheckError as error:
            self.failed.emit(case, spec, str(error))
            return
        except Exception as error:  # a backend's bug: said in the card, the trace in the log
            log.exception("asking %s live failed", spec)
            self.failed.emit(case, spec, str(error) or type(error).__name__)
            return
        self.answered.emit(case, answer)

"""Asking one test case live for the Teach tab, with the user's backend settings.

The question itself is the Qt-free ``LiveQuestion`` (``core/workspace/presentation/teach/
live.py``: the core's ``ask_live`` with the settings read at each question, a new question
abandoning the one in flight, any failure one line); the Teach workspace asks through it. This
adapter runs it as a task on the window's qasync loop (network-bound: it holds neither the GUI
nor the worker threads) and repeats its events as Qt signals.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.workspace.presentation.teach.live import LiveQuestion
from explaincheck.gui.support.tasks import Tasks


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
        self.question = LiveQuestion(settings, tasks.start)
        self.question.answered.connect(self.answered.emit)
        self.question.failed.connect(self.failed.emit)

    def ask(
        self, spec: str, case: TestCase, oracle: OracleResult, environment: Environment
    ) -> asyncio.Task[Any]:
        """Ask ``spec`` the prompt of ``case`` on the open model."""
        return self.question.ask(spec, case, oracle, environment)

    def cancel(self) -> None:
        """Abandon the question in flight, if any (nothing is emitted for it)."""
        self.question.cancel()

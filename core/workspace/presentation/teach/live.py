"""One Teach case asked live, at most one at a time, its failure always one line.

Why here: the question is the core's ``ask_live`` (prompt, backend, grade) with the user's
backend settings, read at each question (they may change meanwhile); what a front end adds is
only that a new question abandons the one in flight (its backend is closed) and that any
failure, a backend's bug included, comes back as one line rather than as an exception (the
trace goes to the log). The request is network-bound: it runs as a task on the caller's loop
(the GUI's qasync loop), holding no thread. Events, emitted on that loop:
``answered(case, LiveAnswer)`` and ``failed(case, spec, line)``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from explaincheck.core.campaign.session import BackendSettings, LiveAnswer, ask_live
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.workspace.events import Event

log = logging.getLogger("explaincheck.teach")

# starts a coroutine as a task on the caller's loop ("what" names it for error reports)
Starter = Callable[[Coroutine[Any, Any, Any], str], "asyncio.Task[Any]"]


def start_here(coroutine: Coroutine[Any, Any, Any], what: str = "task") -> asyncio.Task[Any]:
    """The default starter: a task on the running loop."""
    return asyncio.get_running_loop().create_task(coroutine, name=what)


async def ask_case(
    spec: str,
    case: TestCase,
    oracle: OracleResult,
    environment: Environment,
    settings: BackendSettings,
) -> LiveAnswer | str:
    """``spec``'s graded answer to ``case``, or one line saying why there is none."""
    try:
        return await ask_live(spec, case, oracle, environment, settings)
    except ExplaincheckError as error:
        return str(error)
    except Exception as error:  # a backend's bug: said in the card, the trace in the log
        log.exception("asking %s live failed", spec)
        lines = str(error).strip().splitlines()
        return lines[0] if lines else type(error).__name__


class LiveQuestion:
    """One live question at a time; its answer or failure arrives as an event."""

    def __init__(
        self,
        settings: Callable[[], BackendSettings] | None = None,
        start: Starter | None = None,
    ) -> None:
        self.settings = settings or BackendSettings  # read at each question
        self._start = start or start_here
        self._task: asyncio.Task[Any] | None = None
        self.answered = Event("answered")  # (TestCase, LiveAnswer)
        self.failed = Event("failed")  # (TestCase, spec, one line)

    def ask(
        self, spec: str, case: TestCase, oracle: OracleResult, environment: Environment
    ) -> asyncio.Task[Any]:
        """Ask ``spec`` the prompt of ``case`` on the open model (the question in flight, if
        any, is abandoned)."""
        self.cancel()
        self._task = self._start(
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
        found = await ask_case(spec, case, oracle, environment, settings)
        if isinstance(found, str):
            self.failed.emit(case, spec, found)
        else:
            self.answered.emit(case, found)

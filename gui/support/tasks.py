"""Background work for the views: asyncio tasks on the qasync loop and blocking calls on threads.

The GUI thread must never block on Storm, an LLM or SQLite. Views start coroutines here; blocking
functions run on a worker thread through ``in_thread``. ``Tasks`` keeps a reference to every task
(asyncio holds only weak ones), reports failures through one callback instead of losing them,
and tells whether anything is still running (the screenshot mode waits for that).
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

T = TypeVar("T")

# Worker threads for blocking work (layouts, SQLite reads, analysis). Two cores on the reference
# machine: more threads would only compete with the GUI thread for the GIL.
_EXECUTOR = ThreadPoolExecutor(max_workers=2, thread_name_prefix="explaincheck-gui")


# How often a running thread hands the interpreter (GIL) over (Python's default: 5 ms). Each time
# the GUI thread comes back from Qt's C++ (a paint, a timer) it must win the GIL back from a busy
# worker, waiting up to one interval; a repaint that calls Python a few dozen times then stalls
# for hundreds of ms. Measured with benchmarks/gui_large_model.py (10^5 states, the Teach tab
# taking up the model on a worker): longest stall 265-460 ms at 5 ms, 93-265 ms at 2 ms, 71-79 ms at
# 1 ms; the worker itself took about 1 s in each case.
GUI_SWITCH_INTERVAL = 0.001


def prepare_worker_threads(loop: asyncio.AbstractEventLoop) -> None:
    """Worker threads that leave the GUI thread fluid: plain Python threads for
    ``asyncio.to_thread`` users (the oracle waits for its child process in one; qasync's default
    QThread pool warns and may crash at interpreter exit), and a short GIL switch interval."""
    loop.set_default_executor(ThreadPoolExecutor(max_workers=8, thread_name_prefix="explaincheck"))
    sys.setswitchinterval(GUI_SWITCH_INTERVAL)


async def in_thread(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking function on a worker thread and await its result."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_EXECUTOR, functools.partial(function, *args, **kwargs))


class Tasks(QObject):
    """Owns the running coroutines of one window."""

    failed = Signal(str, object)  # (what, exception)
    idle_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._running: dict[asyncio.Task, str] = {}
        # the loop of the thread that made us (signals may arrive when no loop is "running")
        self._loop = asyncio.get_event_loop()

    def start(self, coroutine: Coroutine[Any, Any, Any], what: str = "task") -> asyncio.Task:
        task = self._loop.create_task(coroutine)
        was_idle = not self._running
        self._running[task] = what
        task.add_done_callback(self._finished)
        if was_idle:
            self.idle_changed.emit(False)
        return task

    def _finished(self, task: asyncio.Task) -> None:
        what = self._running.pop(task, "task")
        if not task.cancelled() and task.exception() is not None:
            self.failed.emit(what, task.exception())
        if not self._running:
            self.idle_changed.emit(True)

    @property
    def idle(self) -> bool:
        return not self._running

    def running(self) -> list[str]:
        return list(self._running.values())

    def cancel_all(self) -> None:
        for task in list(self._running):
            task.cancel()

    async def wait_idle(self, timeout: float | None = None) -> None:
        """Wait until no task runs (tasks may start others meanwhile)."""

        async def _wait() -> None:
            while self._running:
                await asyncio.gather(*self._running, return_exceptions=True)
                await asyncio.sleep(0)

        await asyncio.wait_for(_wait(), timeout)

"""The one thread that runs native llama.cpp work (loading a model, a generation), which a
stopped run never waits for.

Why not a ``ThreadPoolExecutor``: Python joins its threads at exit, so after Ctrl-C the process
waited for the generation in flight to end (85 s with a local model). A generation inside
llama.cpp cannot be interrupted from Python, so it is left to finish on a daemon thread, and
``busy()`` tells a front end that is about to exit that native work is still running: the
command line then ends the process at once (``os._exit``, after its results are committed and
its lines written), which ends the generation with it; the window just leaves it to finish.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

_T = TypeVar("_T")


class NativeWorker(Executor):
    """A single daemon thread taking calls one at a time (llama.cpp objects are not
    thread-safe), with the count of calls submitted and not yet ended."""

    def __init__(self, name: str = "explaincheck-llama") -> None:
        self._name = name
        self._calls: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]]
        self._calls = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending = 0
        self._thread: threading.Thread | None = None

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        future: Future[_T] = Future()
        call = (lambda: fn(*args, **kwargs)) if kwargs else fn
        with self._lock:
            self._pending += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
        self._calls.put((future, call, () if kwargs else args))
        return future

    def busy(self) -> bool:
        """Whether a call is running or waiting (a generation a stopped run left behind)."""
        with self._lock:
            return self._pending > 0

    def _run(self) -> None:
        while True:
            future, call, args = self._calls.get()
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(call(*args))
                    except BaseException as error:  # handed to the awaiting coroutine
                        future.set_exception(error)
            finally:
                with self._lock:
                    self._pending -= 1


WORKER = NativeWorker()  # shared by every local model: their times add up (``serial``)

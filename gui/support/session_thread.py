"""One campaign session at a time on a worker thread, for the GUI's controllers.

Why one base: the Campaign tab's run and "Ask an LLM for its policy" both run a
``CampaignSession`` on a thread of their own (SQLite connections belong to the thread that made
them) and must be stoppable from the GUI thread at any moment, also before the session exists.
The start, the stop and the "running" flag are written once here.

Why every signal of the worker goes through ``_emit``: a local model's generation cannot be
interrupted, so a stopped session may still be ending on its thread while the window closes and
Qt deletes the controller; a signal emitted then raised "RuntimeError: Signal source has been
deleted" at exit. ``shutdown`` (the window's close) stops the session and closes the gate under
the same lock ``_emit`` holds while it emits, so after it returns the thread emits nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal, SignalInstance

from explaincheck.core.campaign.session import CampaignSession


class SessionThread(QObject):
    """``running`` is True from ``_launch`` until the worker's last signal has been delivered
    on the GUI thread (so "not running" implies its results and its last signal were handled)."""

    running_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self._session: CampaignSession | None = None
        self._stop_requested = False
        self._lock = threading.RLock()  # a slot run directly by _emit may call stop()
        self._running = False
        self._shut = False  # the window closed: the worker thread emits nothing any more
        self.running_changed.connect(self._set_running)

    @property
    def running(self) -> bool:
        return self._running

    def _set_running(self, running: bool) -> None:
        self._running = running

    def _launch(self, target: Callable[..., None], args: tuple, name: str) -> None:
        """Run ``target(*args)`` on a new daemon thread; it must end with ``_detach()``."""
        self._stop_requested = False
        self._running = True
        self._thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self.running_changed.emit(True)
        self._thread.start()

    def stop(self) -> None:
        """Cancel cleanly: in-flight requests are abandoned, stored results kept; before the
        session exists, it is cancelled as soon as it is attached."""
        with self._lock:
            self._stop_requested = True
            if self._session is not None:
                self._session.cancel()

    def shutdown(self) -> None:
        """The window is closing: stop the session and let its thread emit nothing from now
        on (the controller may be deleted before the thread ends; its results stay stored)."""
        self.stop()
        with self._lock:
            self._shut = True

    def wait(self, timeout: float | None = None) -> None:
        """Join the worker thread (for shutdown)."""
        if self._thread is not None:
            self._thread.join(timeout)

    # -- on the worker thread ------------------------------------------------------------------
    def _attach(self, session: CampaignSession) -> None:
        with self._lock:
            self._session = session
            if self._stop_requested:
                session.cancel()

    def _emit(self, signal: SignalInstance, *values: Any) -> None:
        """Emit one of this controller's signals from the worker thread, unless the window
        has shut it down (queued to the GUI thread: holding the lock does not block on it)."""
        with self._lock:
            if not self._shut:
                signal.emit(*values)

    def _detach(self) -> None:
        with self._lock:
            self._session = None
        self._emit(self.running_changed, False)

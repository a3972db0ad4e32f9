"""One campaign session at a time on a worker thread, for the GUI's controllers.

Why one base: the Campaign tab's run and "Ask an LLM for its policy" both run a
``CampaignSession`` on a thread of their own (SQLite connections belong to the thread that made
them) and must be stoppable from the GUI thread at any moment, also before the session exists.
The start, the stop and the "running" flag are written once here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

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
        self._lock = threading.Lock()
        self._running = False
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

    def _detach(self) -> None:
        with self._lock:
            self._session = None
        self.running_changed.emit(False)

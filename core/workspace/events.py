"""A tiny observer: ``workspace.events.oracle.connect(fn)``, then ``emit(...)`` calls ``fn``.

Why not Qt signals: the workspace is core, which never imports Qt; the GUI's adapters connect
a callback that emits their own signal (Qt queues it to the GUI thread when the callback runs on
a worker). Callbacks run on the emitting thread, in the order they were connected; an exception
in one propagates to the emitter, so a broken listener shows up in tests instead of vanishing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Callback = Callable[..., Any]


class Event:
    """One kind of happening and the callbacks listening to it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._callbacks: list[Callback] = []

    def connect(self, callback: Callback) -> Callback:
        """Call ``callback(*values)`` on every ``emit`` (returned, so it serves as a decorator)."""
        self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callback) -> None:
        """Stop calling ``callback`` (a callback never connected is ignored)."""
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, *values: Any) -> None:
        for callback in list(self._callbacks):  # a callback may disconnect itself
            callback(*values)

    def __repr__(self) -> str:
        return f"Event({self.name!r}, {len(self._callbacks)} callbacks)"

"""What the presenters say to the user: one line in the window's status bar, and a failure also
in the window's error list (which ``gui --screenshot`` and the tests read).

Why an object of its own: a presenter that only needed ``window.statusBar()`` and
``window.errors`` took the whole window, and the window imports every presenter (issue 36)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtWidgets import QStatusBar


@dataclass
class Notices:
    bar: QStatusBar
    errors: list[str] = field(default_factory=list)

    def say(self, text: str, milliseconds: int = 0) -> None:
        self.bar.showMessage(text, milliseconds)

    def fail(self, logged: str, shown: str | None = None, milliseconds: int = 15000) -> None:
        """Log ``logged`` as an error and show ``shown`` (default: the same words)."""
        self.errors.append(logged)
        self.bar.showMessage(shown if shown is not None else logged, milliseconds)


ShowTab = Callable[[str], None]  # the window's ``show_tab``: "graph", "campaign", …

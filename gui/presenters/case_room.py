"""Room for a case: while a case is open on the Results tab, the side panels fold away.

Why: at 1366x768 the Model and State inspector docks leave the Results tab about 660 px, and a
case of four states (its question, its reply, the parsed and expected answers and the oracle's
values of each state) does not fit that whole (issue 50). The docks the user had open fold when
a case opens on the Results tab and come back when it closes (✕, Esc) or another tab is shown;
a dock the user opens again meanwhile stays open, and one the user had closed stays closed.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QDockWidget, QTabWidget, QWidget


class CaseRoom:
    """Given the docks, the window's tabs, the Results tab and its executions panel."""

    def __init__(
        self,
        docks: Sequence[QDockWidget],
        tabs: QTabWidget,
        results_tab: QTabWidget,
        panel: QWidget,
    ) -> None:
        self.docks, self.tabs, self.results_tab, self.panel = list(docks), tabs, results_tab, panel
        self.folded: list[QDockWidget] = []  # the docks folded for the open case
        self.in_case = False
        tabs.currentChanged.connect(lambda _index: self.update())
        results_tab.currentChanged.connect(lambda _index: self.update())

    def case_open(self, _open: bool) -> None:
        """The executions panel opened or closed a case."""
        self.update()

    def update(self) -> None:
        """Fold the docks when a case is in view on the Results tab, unfold them otherwise."""
        showing = (
            bool(getattr(self.panel, "case_open", False))
            and self.tabs.currentWidget() is self.results_tab
            and self.results_tab.currentWidget() is self.panel
        )
        if showing and not self.in_case:
            self.folded = [dock for dock in self.docks if dock.isVisible()]
            for dock in self.folded:
                dock.hide()
        elif not showing and self.in_case:
            self.unfold()
        self.in_case = showing

    def unfold(self) -> None:
        """The folded docks back (before the window saves its layout, too)."""
        for dock in self.folded:
            dock.show()
        self.folded = []
        self.in_case = False

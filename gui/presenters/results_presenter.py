"""Opening a results file: the Results and Report tabs fill from it, and when no model is open
the model it was tested on opens as it was tested (its constants and labels). A case chosen
on the Results tab is shown on the graph and in the inspector."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog

from explaincheck.gui.adapters.results_data import campaign_model, file_campaigns, same_model
from explaincheck.gui.support.tasks import in_thread

if TYPE_CHECKING:
    from explaincheck.gui.main_window import MainWindow


class ResultsPresenter:
    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def choose_database(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window,
            "Open results database",
            "",
            "SQLite (*.sqlite *.sqlite3 *.db);;All files (*)",
        )
        if path:
            self.open_database(path)

    def open_database(self, path: str) -> asyncio.Task:
        self.window.settings.add_recent_database(path)
        self.window.campaign_view.set_database(path)
        return self.window.tasks.start(self.load(path), "open results")

    async def load(self, path: str) -> None:
        window = self.window
        results = window.results
        try:
            await results.load(path)
        except Exception as error:
            window.errors.append(str(error))
            window.statusBar().showMessage(f"Cannot open {path}: {error}", 15000)
            return
        window.statusBar().showMessage(f"{len(results.rows)} executions from {path}", 8000)
        window.policy.update_report()
        if window.model.environment is None and results.rows:
            from explaincheck.core.environments.registry import BUILTIN_IDS

            first = str(results.rows[0].get("environment") or "")
            if first in BUILTIN_IDS or (first and Path(first).is_file()):
                # as it was tested: the campaign's constants and goal/unsafe labels
                campaigns = await in_thread(file_campaigns, path)
                window.model.open_spec(first, **campaign_model(campaigns, first))

    def case_selected(self, row: dict) -> None:
        """The selection ring moves with the inspector to the case's first state."""
        window = self.window
        states = [int(s) for s in (row.get("states") or [])]
        if same_model(row, window.model.oracle):
            window.graph.highlight_states(states, select=states[0] if states else None)
            if states:
                window.inspector.show_state(states[0])

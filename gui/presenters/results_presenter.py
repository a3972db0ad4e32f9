"""Opening a results file: the Results and Report tabs fill from it, and the model it was tested
on opens as it was tested (its constants and labels) unless it is the open one; one that cannot
be opened here is named in the status bar (``results.opening.file_model``). A case chosen on
the Results tab is shown on the graph and in the inspector."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from explaincheck.core.workspace.presentation.report import file_campaigns
from explaincheck.core.workspace.presentation.results.opening import (
    campaign_model,
    file_model,
    missing_plugin_line,
)
from explaincheck.core.workspace.presentation.results.rows import Row, field, same_model
from explaincheck.gui.adapters.model_controller import ModelController
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.presenters.notices import Notices
from explaincheck.gui.support.settings import Settings
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views.campaign_view import CampaignView
from explaincheck.gui.views.graph_view import GraphView
from explaincheck.gui.views.state_inspector import StateInspector


class ResultsPresenter:
    """Given the results it fills, the model it may open, the views that show a chosen case,
    and ``loaded`` (called once a file's rows are in: the Report's value-loss table)."""

    def __init__(
        self,
        results: ResultsData,
        model: ModelController,
        views: tuple[CampaignView, GraphView, StateInspector],
        settings: Settings,
        tasks: Tasks,
        notices: Notices,
        loaded: Callable[[], object],
        parent: QWidget,
    ) -> None:
        self.results, self.model, self.settings, self.tasks = results, model, settings, tasks
        self.campaign_view, self.graph, self.inspector = views
        self.notices, self.loaded, self.parent = notices, loaded, parent

    def choose_database(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.parent,
            "Open results database",
            "",
            "SQLite (*.sqlite *.sqlite3 *.db);;All files (*)",
        )
        if path:
            self.open_database(path)

    def open_database(self, path: str) -> asyncio.Task:
        self.settings.add_recent_database(path)
        self.campaign_view.set_database(path)
        return self.tasks.start(self.load(path), "open results")

    async def load(self, path: str) -> None:
        results = self.results
        try:
            await results.load(path)
        except Exception as error:
            self.notices.fail(str(error), f"Cannot open {path}: {error}")
            return
        self.notices.say(f"{len(results.executions)} executions from {path}", 8000)
        self.loaded()
        campaigns = await in_thread(file_campaigns, path)
        missing = missing_plugin_line(campaigns)
        if missing:  # made with a plugin that is not installed here: say which, and its version
            self.notices.fail(missing, f"{path}: {missing}", 30000)
        environment = self.model.environment
        opening = file_model(
            results.executions,
            self.model.oracle,
            None if environment is None else (environment.id or environment.model_path),
            "" if environment is None else environment.title,
            Path(path).name,
        )
        if opening.open is not None:
            # as it was tested: the campaign's constants and goal/unsafe labels
            self.model.open_spec(opening.open, **campaign_model(campaigns, opening.open))
        if opening.said:
            self.notices.say(opening.said, 15000)

    def case_selected(self, row: Row) -> None:
        """The selection ring moves with the inspector to the case's first state (``row``: the
        Results tab's chosen execution, or a side-by-side dict row)."""
        states = [int(s) for s in (field(row, "states") or [])]
        if same_model(row, self.model.oracle):
            self.graph.highlight_states(states, select=states[0] if states else None)
            if states:
                self.inspector.show_state(states[0])

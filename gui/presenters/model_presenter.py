"""The open model as the window shows it: the environment list, the constants dialog, the
oracle's status line, its errors on the canvas, and a new oracle handed to every view."""

from __future__ import annotations

import asyncio
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.program import ProgramConstant as Constant
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.model import GoalToChoose
from explaincheck.core.workspace.presentation.model_errors import error_text
from explaincheck.core.workspace.presentation.window_text import oracle_text
from explaincheck.gui.adapters.model_controller import ModelController, builtin_environments
from explaincheck.gui.presenters.notices import Notices, ShowTab
from explaincheck.gui.support.tasks import in_thread
from explaincheck.gui.views.campaign_view import CampaignView
from explaincheck.gui.views.constants_dialog import ConstantsDialog
from explaincheck.gui.views.error_overlay import ErrorOverlay
from explaincheck.gui.views.graph_view import GraphView
from explaincheck.gui.views.model_view import ModelView
from explaincheck.gui.views.results_view import ResultsView
from explaincheck.gui.views.state_inspector import StateInspector
from explaincheck.gui.views.status_line import StatusLine
from explaincheck.gui.views.teach_view import TeachView

CHOOSE_GOAL_HINT = "Choose the goal in the Model panel's Goal box and press Build oracle."


@dataclass
class OracleViews:
    """The views a new oracle is handed to."""

    graph: GraphView
    inspector: StateInspector
    results_view: ResultsView
    campaign_view: CampaignView
    teach_view: TeachView


@dataclass
class ModelActions:
    """The actions whose state follows the open model, and the Environments menu."""

    build: QAction
    save_wording: QAction
    open_policy: QAction
    environments_menu: QMenu


class ModelPresenter:
    """Given the model controller, the Model panel, the views an oracle goes to, the canvas's
    error overlay, the status line, the actions it enables, the window's title setter and
    tab switcher, and where it speaks."""

    def __init__(
        self,
        model: ModelController,
        model_view: ModelView,
        views: OracleViews,
        canvas_error: ErrorOverlay,
        status_line: StatusLine,
        actions: ModelActions,
        title: Callable[[str], None],
        show_tab: ShowTab,
        notices: Notices,
        parent: QWidget,
    ) -> None:
        self.model, self.model_view, self.views = model, model_view, views
        self.canvas_error, self.status_line, self.actions = canvas_error, status_line, actions
        self.title, self.show_tab, self.notices, self.parent = title, show_tab, notices, parent
        self.environments: list[Environment] = []
        self.constants_dialog: ConstantsDialog | None = None  # while it is open
        self.size_probe: asyncio.Task | None = None  # built-ins' sizes, cancelled on close

    async def load_environments(self, probe_sizes: bool = False) -> None:
        """The built-ins in the Model panel and the toolbar's Environments menu; with
        ``probe_sizes``, their oracles built one at a time in the background for their sizes."""
        try:
            environments = await in_thread(builtin_environments)
        except Exception as error:
            self.model_view.show_environments_error(f"Built-in environments unavailable: {error}")
            return
        self.environments = environments
        self.model_view.set_environments(environments)
        menu = self.actions.environments_menu
        menu.clear()
        for environment in environments:
            action = menu.addAction(environment.title)
            action.setToolTip(environment.description)
            action.triggered.connect(lambda _=False, e=environment: self.model.open_environment(e))
        if probe_sizes:  # cancelled and awaited on close (``closeEvent``, ``app._drain``)
            self.size_probe = asyncio.create_task(self.model.probe_sizes(environments))

    async def ask_constants(
        self, constants: list[Constant], defaults: dict[str, str]
    ) -> dict[str, str] | None:
        """The undefined-constants dialog, awaited without a nested event loop."""
        dialog = ConstantsDialog(constants, defaults, self.parent)
        self.constants_dialog = dialog
        future: asyncio.Future = asyncio.get_running_loop().create_future()

        def finished(result: int) -> None:
            if not future.done():
                future.set_result(result)

        dialog.finished.connect(finished)
        dialog.open()
        result = await future
        self.constants_dialog = None
        return dialog.values() if result == ConstantsDialog.DialogCode.Accepted else None

    def busy(self, busy: bool) -> None:
        self.actions.build.setEnabled(not busy)
        if busy:
            self.canvas_error.hide()
            environment = self.model.environment
            name = environment.title if environment else "the model"
            self.status_line.oracle.setText(f"Oracle: model checking {name}…")

    def environment_changed(self, environment: Environment) -> None:
        """A new model is open (its oracle still to come): nothing of the old one stays shown."""
        self.title(f"explaincheck — {environment.title}")
        self.views.inspector.set_oracle(None)

    def failed(self, error: BaseException) -> None:
        message, excerpt = error_text(error, self.model.last_path)
        self.status_line.oracle.setText(f"Oracle: failed — {message}")
        self.notices.errors.append(str(error))
        if self.model.oracle is None:  # nothing to show: the canvas says what went wrong
            self.views.graph.clear()
        if isinstance(error, GoalToChoose):  # the file is fine: the Model panel asks the rest
            self.canvas_error.show_error(message, excerpt, hint=CHOOSE_GOAL_HINT)
            self.model_view.goal.setFocus()
        else:
            self.canvas_error.show_error(message, excerpt)
        self.show_tab("graph")
        if not isinstance(error, ExplaincheckError):
            traceback.print_exception(error, file=sys.stderr)

    def oracle_ready(self, oracle: OracleResult, environment: Environment) -> None:
        """Every view shows the new oracle (the window then lets the policy presenter follow)."""
        views = self.views
        self.canvas_error.hide()
        self.title(f"explaincheck — {environment.title}")
        views.graph.set_oracle(oracle, environment.variables)
        views.inspector.set_oracle(oracle, environment.describe, environment.variables)
        # the one selected state (kept by valuation across a rebuild, else the initial state)
        selected = self.model.selection.state
        views.inspector.show_state(oracle.model.initial if selected is None else selected)
        views.graph.select_state(oracle.model.initial if selected is None else selected, False)
        views.results_view.set_oracle(oracle, environment)
        views.campaign_view.set_model(oracle, environment)
        views.teach_view.set_model(oracle, environment)
        self.actions.save_wording.setEnabled(environment.folder is None)  # a bare PRISM file
        self.actions.open_policy.setEnabled(True)
        self.status_line.oracle.setText(oracle_text(oracle, environment.title))

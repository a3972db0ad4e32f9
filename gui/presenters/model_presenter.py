"""The open model as the window shows it: the environment list, the constants dialog, the
oracle's status line, its errors on the canvas, and a new oracle handed to every view."""

from __future__ import annotations

import asyncio
import sys
import traceback
from typing import TYPE_CHECKING

from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.program import ProgramConstant as Constant
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import policy_chain
from explaincheck.core.workspace.model import GoalToChoose
from explaincheck.core.workspace.presentation.model_errors import error_text
from explaincheck.core.workspace.presentation.window_text import oracle_text
from explaincheck.gui.adapters.model_controller import builtin_environments
from explaincheck.gui.support.tasks import in_thread
from explaincheck.gui.views.constants_dialog import ConstantsDialog

CHOOSE_GOAL_HINT = "Choose the goal in the Model panel's Goal box and press Build oracle."

if TYPE_CHECKING:
    from explaincheck.gui.main_window import MainWindow


class ModelPresenter:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.environments: list[Environment] = []
        self.constants_dialog: ConstantsDialog | None = None  # while it is open
        self.size_probe: asyncio.Task | None = None  # built-ins' sizes, cancelled on close

    async def load_environments(self, probe_sizes: bool = False) -> None:
        """The built-ins in the Model panel and the toolbar's Environments menu; with
        ``probe_sizes``, their oracles built one at a time in the background for their sizes."""
        window = self.window
        try:
            environments = await in_thread(builtin_environments)
        except Exception as error:
            window.model_view.show_environments_error(f"Built-in environments unavailable: {error}")
            return
        self.environments = environments
        window.model_view.set_environments(environments)
        menu = window.commands.environments_menu
        menu.clear()
        for environment in environments:
            action = menu.addAction(environment.title)
            action.setToolTip(environment.description)
            action.triggered.connect(
                lambda _=False, e=environment: window.model.open_environment(e)
            )
        if probe_sizes:  # cancelled and awaited on close (``closeEvent``, ``app._drain``)
            self.size_probe = asyncio.create_task(window.model.probe_sizes(environments))

    async def ask_constants(
        self, constants: list[Constant], defaults: dict[str, str]
    ) -> dict[str, str] | None:
        """The undefined-constants dialog, awaited without a nested event loop."""
        dialog = ConstantsDialog(constants, defaults, self.window)
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
        window = self.window
        window.commands.build.setEnabled(not busy)
        if busy:
            window.canvas_error.hide()
            environment = window.model.environment
            name = environment.title if environment else "the model"
            window.status_line.oracle.setText(f"Oracle: model checking {name}…")

    def environment_changed(self, environment: Environment) -> None:
        """A new model is open (its oracle still to come): nothing of the old one stays shown."""
        window = self.window
        window.setWindowTitle(f"explaincheck — {environment.title}")
        window.inspector.set_oracle(None)

    def failed(self, error: BaseException) -> None:
        window = self.window
        message, excerpt = error_text(error, window.model.last_path)
        window.status_line.oracle.setText(f"Oracle: failed — {message}")
        window.errors.append(str(error))
        if window.model.oracle is None:  # nothing to show: the canvas says what went wrong
            window.graph.clear()
        if isinstance(error, GoalToChoose):  # the file is fine: the Model panel asks the rest
            window.canvas_error.show_error(message, excerpt, hint=CHOOSE_GOAL_HINT)
            window.model_view.goal.setFocus()
        else:
            window.canvas_error.show_error(message, excerpt)
        if window.tabs.currentWidget() is not window.graph:
            window.show_tab("graph")
        if not isinstance(error, ExplaincheckError):
            traceback.print_exception(error, file=sys.stderr)

    def oracle_ready(self, oracle: OracleResult, environment: Environment) -> None:
        """Every view shows the new oracle; a policy asked for on the command line follows."""
        window = self.window
        window.canvas_error.hide()
        window.setWindowTitle(f"explaincheck — {environment.title}")
        window.graph.set_oracle(oracle, environment.variables)
        window.inspector.set_oracle(oracle, environment.describe, environment.variables)
        window.inspector.show_state(oracle.model.initial)
        window.results_view.set_oracle(oracle, environment)
        window.campaign_view.set_model(oracle, environment)
        window.teach_view.set_model(oracle, environment)
        window.commands.save_wording.setEnabled(environment.folder is None)  # a bare PRISM file
        window.commands.open_policy.setEnabled(True)
        if window.pending_policy and policy_chain(oracle) is None:
            path, window.pending_policy = window.pending_policy, None
            window.policy.open_policy(path)
        window.policy.update_report()
        window.status_line.oracle.setText(oracle_text(oracle, environment.title))

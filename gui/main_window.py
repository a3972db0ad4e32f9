"""The main window: toolbar, the model dock, Graph | Campaign | Results | Report | Teach tabs,
the state inspector and a status bar with the oracle and campaign progress.

The window only wires views to controllers; every long job runs elsewhere (oracle in a child
process, layouts and SQLite reads on worker threads, campaigns on their own thread).
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QToolButton,
    QWidget,
)

from explaincheck.core.campaign.eta import EtaEstimator
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.program import ProgramConstant as Constant
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.paths import resources_dir
from explaincheck.core.policy.types import policy_chain
from explaincheck.gui.backend_choices import llm_choices
from explaincheck.gui.campaign_controller import (
    CampaignController,
    build_campaign,
    results_path,
)
from explaincheck.gui.live_question_controller import LiveQuestionController
from explaincheck.gui.model_controller import ModelController, builtin_environments
from explaincheck.gui.results_data import (
    ResultsData,
    campaign_model,
    file_campaigns,
    same_model,
)
from explaincheck.gui.settings import Settings
from explaincheck.gui.tasks import Tasks, in_thread
from explaincheck.gui.views.campaign_view import CampaignView
from explaincheck.gui.views.constants_dialog import ConstantsDialog
from explaincheck.gui.views.error_overlay import ErrorOverlay
from explaincheck.gui.views.graph_view import GraphView
from explaincheck.gui.views.model_view import ModelView, error_text
from explaincheck.gui.views.regrade_dialog import RegradeDialog
from explaincheck.gui.views.report_view import ReportView
from explaincheck.gui.views.results_view import ResultsView
from explaincheck.gui.views.state_inspector import StateInspector
from explaincheck.gui.views.teach_view import TeachView
from explaincheck.gui.views.wheel_guard import guard_wheel

TABS = ("graph", "campaign", "results", "report", "teach", "workbench")
DATABASE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setWidget(widget)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


class MainWindow(QMainWindow):
    """The explaincheck desktop window."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.setWindowTitle("explaincheck")
        self.setWindowIcon(QIcon(str(resources_dir() / "icons" / "explaincheck.svg")))
        self.setAcceptDrops(True)
        self.errors: list[str] = []
        self.pending_policy: str | None = None  # ``gui --policy FILE``: opened with the oracle
        self.environments: list[Environment] = []
        self.constants_dialog: ConstantsDialog | None = None  # while it is open
        self.eta: EtaEstimator | None = None  # per-LLM time left of the running campaign

        self.tasks = Tasks(self)
        self.tasks.failed.connect(self._task_failed)
        self.results = ResultsData(self)
        self.model = ModelController(self.tasks, self.settings, ask_constants=self.ask_constants)
        self.campaigns = CampaignController(self.tasks, self)
        self.live = LiveQuestionController(self.tasks, self.backend_settings, self)

        self.graph = GraphView(self.tasks, self)
        self.canvas_error = ErrorOverlay(self.graph)
        self.results_view = ResultsView(self.results, self, self.tasks)
        self.report_view = ReportView(self.results, self.tasks, self)
        answerers = llm_choices()  # the backend registry's kinds, as plain data for the views
        self.teach_view = TeachView(self.results, self.tasks, self, answerers=answerers)
        self.campaign_view = CampaignView(self.tasks, self, answerers=answerers)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.graph, "Graph")
        self.tabs.addTab(self.campaign_view, "Campaign")
        self.tabs.addTab(self.results_view, "Results")
        self.tabs.addTab(self.report_view, "Report")
        self.tabs.addTab(self.teach_view, "Teach")
        self.setCentralWidget(self.tabs)

        self.inspector = StateInspector(self)
        self.model_view = ModelView(self.model, self)
        prefs = self.settings.preferences()
        self.campaign_view.apply_preferences(prefs.ollama_host, prefs.concurrency)
        self.campaign_view.set_budget(prefs.budget)
        self.campaign_view.apply_choices(self.settings.campaign_choices())
        self.campaign_view.watch_results(self.results)
        self._build_docks()
        self._build_actions()
        self._build_status_bar()
        self._wire()
        from explaincheck.gui.workbench_wiring import attach_workbench

        self.workbench, self.workbench_controller = attach_workbench(self)  # editor, simulator…
        from explaincheck.gui.llm_policy_wiring import LlmPolicyWiring

        self.llm_policy = LlmPolicyWiring(self)  # File › Ask an LLM for its policy…
        self._restore()
        guard_wheel(self)  # spin and combo boxes take the wheel only once focused

    # -- layout ----------------------------------------------------------------------------
    def _build_docks(self) -> None:
        self.model_dock = QDockWidget("Model", self)
        self.model_dock.setObjectName("modelDock")
        self.model_dock.setWidget(_scrolled(self.model_view))
        self.inspector_dock = QDockWidget("State inspector", self)
        self.inspector_dock.setObjectName("inspectorDock")
        self.inspector_dock.setWidget(self.inspector)
        self.model_dock.setMinimumWidth(300)
        self.inspector_dock.setMinimumWidth(300)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.model_dock)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.inspector_dock)
        self.resizeDocks(
            [self.model_dock, self.inspector_dock], [360, 320], Qt.Orientation.Horizontal
        )

    def _action(self, text: str, shortcut, handler, tip: str = "") -> QAction:
        action = QAction(text, self)
        tip = tip or text
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            tip = f"{tip} ({action.shortcut().toString()})"
        action.setToolTip(tip)
        action.triggered.connect(handler)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.open_action = self._action(
            "Open model…",
            QKeySequence.StandardKey.Open,
            self.model_view.choose_file,
            "Open a PRISM model",
        )
        self.build_action = self._action("Build oracle", "Ctrl+B", self.model_view.rebuild)
        self.run_action = self._action("Run ▶", "F5", self.run_campaign, "Run the campaign")
        self.stop_action = self._action("Stop ■", "Shift+F5", self.stop, "Stop the campaign")
        self.stop_action.setEnabled(False)
        self.open_results_action = self._action(
            "Open results…", "Ctrl+Shift+O", self.choose_database, "Open a results database"
        )
        self.regrade_action = self._action(
            "Re-grade results…",
            None,
            self.choose_regrade,
            "Grade the stored replies again under another satisfy rule (no LLM asked)",
        )
        self.regrade_action.setEnabled(False)
        self.open_policy_action = self._action(
            "Open policy…",
            None,
            self.choose_policy,
            "Load a policy table (CSV or JSON by state variables) to test questions about it",
        )
        self.open_policy_action.setEnabled(False)
        self.save_wording_action = self._action(
            "Save wording as environment folder…",
            None,
            self.choose_wording_folder,
            "Write the open PRISM model and its generic wording as an environment folder",
        )
        self.save_wording_action.setEnabled(False)
        self.report_action = self._action(
            "Report", None, lambda: self.show_tab("report"), "Show the report (Ctrl+3)"
        )
        self.settings_action = self._action(
            "Settings…", QKeySequence.StandardKey.Preferences, self.edit_settings
        )
        if self.settings_action.shortcut().isEmpty():
            self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.fullscreen_action = self._action(
            "Full screen", "F11", self.toggle_full_screen, "Full screen (for teaching)"
        )
        for i, name in enumerate(TABS):
            self._action(name.title(), f"Ctrl+{i + 1}", lambda _=False, n=name: self.show_tab(n))

        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("mainToolbar")
        toolbar.setMovable(False)
        toolbar.addAction(self.open_action)
        self.environments_button = QToolButton(self)
        self.environments_button.setText("Environments ▾")
        self.environments_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.environments_menu = QMenu(self)
        self.environments_button.setMenu(self.environments_menu)
        toolbar.addWidget(self.environments_button)
        toolbar.addSeparator()
        toolbar.addAction(self.run_action)
        toolbar.addAction(self.stop_action)
        toolbar.addSeparator()
        toolbar.addAction(self.open_results_action)
        toolbar.addAction(self.report_action)
        toolbar.addSeparator()
        toolbar.addAction(self.settings_action)

        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        for action in (self.open_action, self.open_results_action, self.build_action):
            file_menu.addAction(action)
        file_menu.addAction(self.open_policy_action)
        file_menu.addAction(self.save_wording_action)
        file_menu.addSeparator()
        file_menu.addAction(self.settings_action)
        file_menu.addAction(self._action("Quit", QKeySequence.StandardKey.Quit, self.close))
        campaign_menu = menu.addMenu("&Campaign")
        campaign_menu.addAction(self.run_action)
        campaign_menu.addAction(self.stop_action)
        campaign_menu.addAction(self.regrade_action)
        view_menu = menu.addMenu("&View")
        campaign_menu.addAction(
            self._action("Set up…", None, lambda: self.show_tab("campaign"), "The Campaign tab")
        )
        for dock in (self.model_dock, self.inspector_dock):
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addAction(self.fullscreen_action)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.oracle_status = QLabel("No model open", self)
        # a long error message must not set the window's minimum width
        self.oracle_status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar.addWidget(self.oracle_status, 1)
        self.campaign_status = QLabel("", self)
        bar.addPermanentWidget(self.campaign_status)
        self.campaign_progress = QProgressBar(self)
        self.campaign_progress.setMaximumWidth(180)
        self.campaign_progress.setMaximumHeight(14)
        self.campaign_progress.setFormat("%v / %m")
        self.campaign_progress.hide()
        bar.addPermanentWidget(self.campaign_progress)

    def _wire(self) -> None:
        self.model.oracle_ready.connect(self._oracle_ready)
        self.model.busy_changed.connect(self._model_busy)
        self.model.failed.connect(self._model_failed)
        self.model.cancelled.connect(lambda: self.oracle_status.setText("Oracle: cancelled"))
        self.model.progress.connect(self.oracle_status.setText)
        self.graph.state_selected.connect(self.inspector.show_state)
        self.inspector.state_requested.connect(self.graph.select_state)
        self.results_view.case_selected.connect(self._case_selected)
        self.results_view.states_highlighted.connect(self.graph.mark_states)
        self.teach_view.state_changed.connect(self._teach_state)
        self.campaign_view.run_requested.connect(self.run_campaign)
        self.campaign_view.stop_requested.connect(self.stop)
        self.campaign_view.check_requested.connect(self.campaigns.check_host)
        self.campaigns.host_checked.connect(self.campaign_view.show_host_models)
        self.campaigns.host_failed.connect(self.campaign_view.show_host_error)
        self.campaign_view.openai_check_requested.connect(self.campaigns.check_openai)
        self.campaigns.openai_checked.connect(self.campaign_view.show_openai_models)
        self.campaigns.openai_failed.connect(self.campaign_view.show_openai_error)
        self.teach_view.live_requested.connect(self._ask_live)
        self.live.answered.connect(self.teach_view.show_live_answer)
        self.live.failed.connect(self.teach_view.show_live_error)
        self.campaign_view.progress_message.connect(self.campaign_status.setText)
        self.campaigns.row.connect(lambda row: self.results.add([row]))
        self.results.reset.connect(self._results_reset)
        self.campaigns.progress.connect(self._campaign_progress)
        self.campaigns.running_changed.connect(self._campaign_running)
        self.campaigns.failed.connect(self._campaign_failed)
        self.campaigns.planned.connect(self._campaign_planned)
        self.campaigns.large_plan.connect(self._campaign_large_plan)
        self.campaigns.confirm_large_plans = True
        self.campaigns.llm_plan.connect(self._campaign_llm_plan)
        self.campaigns.finished.connect(self._campaign_finished)
        self.campaigns.costs_started.connect(self.campaign_view.start_costs)
        self.campaigns.cost_stopped.connect(self._campaign_message)

    def _restore(self) -> None:
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:  # a first start: 1600x1000, or the whole free area of a smaller screen
            free = self.screen().availableGeometry()
            self.resize(min(1600, free.width()), min(1000, free.height()))
        if state is not None:
            self.restoreState(state)
        self.results_view.executions.restore_split_sizes(self.settings.split_sizes("results"))

    # -- start-up --------------------------------------------------------------------------
    def start(
        self,
        env: str | None = None,
        db: str | None = None,
        probe_sizes: bool = False,
        model: dict[str, str] | None = None,
    ) -> None:
        """Load the environment list, and what the command line asked for (``model``: its
        --const, --goal, --unsafe). ``probe_sizes`` builds (and caches) the oracles of
        built-ins whose size is not known yet, one at a time in the background, so the list
        can show every size."""
        self.tasks.start(self._load_environments(probe_sizes), "environments")
        if env:
            self.model.open_spec(env, **(model or {}))
        if db:
            self.open_database(db)

    async def _load_environments(self, probe_sizes: bool = False) -> None:
        try:
            environments = await in_thread(builtin_environments)
        except Exception as error:
            message = f"Built-in environments unavailable: {error}"
            self.model_view.show_environments_error(message)
            return
        self.environments = environments
        self.model_view.set_environments(environments)
        self.environments_menu.clear()
        for environment in environments:
            action = self.environments_menu.addAction(environment.title)
            action.setToolTip(environment.description)
            action.triggered.connect(lambda _=False, e=environment: self.model.open_environment(e))
        if probe_sizes:  # cancelled and awaited on close (``closeEvent``, ``app._drain``)
            self._size_probe = asyncio.create_task(self.model.probe_sizes(environments))

    # -- model -----------------------------------------------------------------------------
    async def ask_constants(
        self, constants: list[Constant], defaults: dict[str, str]
    ) -> dict[str, str] | None:
        """The undefined-constants dialog, awaited without a nested event loop."""
        dialog = ConstantsDialog(constants, defaults, self)
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

    def _model_busy(self, busy: bool) -> None:
        self.build_action.setEnabled(not busy)
        if busy:
            self.canvas_error.hide()
            environment = self.model.environment
            name = environment.title if environment else "the model"
            self.oracle_status.setText(f"Oracle: model checking {name}…")

    def _model_failed(self, error: BaseException) -> None:
        message, excerpt = error_text(error, self.model.last_path)
        self.oracle_status.setText(f"Oracle: failed — {message}")
        self.errors.append(str(error))
        if self.model.oracle is None:  # nothing to show: the canvas says what went wrong
            self.graph.clear()
        self.canvas_error.show_error(message, excerpt)
        if self.tabs.currentWidget() is not self.graph:
            self.show_tab("graph")
        if not isinstance(error, ExplaincheckError):
            traceback.print_exception(error, file=sys.stderr)

    def _oracle_ready(self, oracle: OracleResult, environment: Environment) -> None:
        describe = environment.describe
        self.canvas_error.hide()
        self.setWindowTitle(f"explaincheck — {environment.title}")
        self.graph.set_oracle(oracle, environment.variables)
        self.inspector.set_oracle(oracle, describe, environment.variables)
        self.inspector.show_state(oracle.model.initial)
        self.results_view.set_oracle(oracle, environment)
        self.campaign_view.set_model(oracle, environment)
        self.teach_view.set_model(oracle, environment)
        self.save_wording_action.setEnabled(environment.folder is None)  # a bare PRISM file
        self.open_policy_action.setEnabled(True)
        if self.pending_policy and policy_chain(oracle) is None:
            path, self.pending_policy = self.pending_policy, None
            self.open_policy(path)
        self.update_policy_report()
        how = "cache" if oracle.from_cache else f"{oracle.seconds:.2f} s"
        tolerance = f", tie tolerance {oracle.tie_tolerance:g}" if oracle.tie_tolerance else ""
        self.oracle_status.setText(
            f"Oracle: {oracle.method}{tolerance} ({how}) · {environment.title} · "
            f"{oracle.model.states} states, {oracle.model.transitions} transitions"
        )

    # -- policy ----------------------------------------------------------------------------
    def choose_policy(self) -> None:
        from explaincheck.gui.policy_controller import FILTER

        path, _ = QFileDialog.getOpenFileName(self, "Open policy", "", FILTER)
        if path:
            self.open_policy(path)

    def open_policy(self, path: str, default: str = "uniform") -> asyncio.Task:
        """Attach the policy at ``path`` to the open model (states it leaves out: ``default``)."""
        return self.tasks.start(self._open_policy(path, default), "open policy")

    async def _open_policy(self, path: str, default: str) -> None:
        from explaincheck.gui.policy_controller import load_policy

        if self.model.oracle is None or self.model.environment is None:
            self.statusBar().showMessage("Open a model before its policy.", 8000)
            return
        try:
            attached = await load_policy(self.model.oracle, path, default)
        except Exception as error:  # a bad row: one line, the model stays as it was
            self.errors.append(str(error))
            self.statusBar().showMessage(f"Cannot load the policy: {error}", 15000)
            return
        self.show_policy(attached, Path(path).name, default)

    def show_policy(self, attached: OracleResult, name: str, default: str) -> None:
        """Hand the oracle with a policy attached to every view (the graph, the inspector, the
        Campaign and Report tabs, the Workbench simulator) and say its value loss."""
        assert self.model.environment is not None
        self.model.oracle = attached
        self._oracle_ready(attached, self.model.environment)
        from explaincheck.gui.workbench_wiring import loaded_policy_chooser

        self.workbench.simulator.set_loaded_policy(*loaded_policy_chooser(attached))
        chain = policy_chain(attached)
        assert chain is not None
        filled = len(chain.policy.defaulted)
        self.statusBar().showMessage(
            f"Policy {name}: V^π(s0) = {chain.state(chain.initial).value:.4g},"
            f" value loss {chain.value_loss:.4g}"
            + (f" ({filled} states by the default {default})" if filled else ""),
            15000,
        )

    def update_policy_report(self) -> asyncio.Task | None:
        """The Report tab's value-loss table for the open model (loaded and stored policies)."""
        oracle = self.model.oracle
        if oracle is None:
            return None

        async def fill() -> None:
            from explaincheck.gui.policy_controller import policy_loss_table

            table = await policy_loss_table(oracle, list(self.results.rows))
            if oracle is self.model.oracle:
                self.report_view.policy_loss.set_table(table)

        return self.tasks.start(fill(), "policy value loss")

    # -- results ---------------------------------------------------------------------------
    def choose_database(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open results database", "", "SQLite (*.sqlite *.sqlite3 *.db);;All files (*)"
        )
        if path:
            self.open_database(path)

    def open_database(self, path: str) -> asyncio.Task:
        self.settings.add_recent_database(path)
        self.campaign_view.set_database(path)
        return self.tasks.start(self._open_database(path), "open results")

    async def _open_database(self, path: str) -> None:
        try:
            await self.results.load(path)
        except Exception as error:
            self.errors.append(str(error))
            self.statusBar().showMessage(f"Cannot open {path}: {error}", 15000)
            return
        self.statusBar().showMessage(f"{len(self.results.rows)} executions from {path}", 8000)
        self.update_policy_report()
        if self.model.environment is None and self.results.rows:
            from explaincheck.core.environments.registry import BUILTIN_IDS

            first = str(self.results.rows[0].get("environment") or "")
            if first in BUILTIN_IDS or (first and Path(first).is_file()):
                # as it was tested: the campaign's constants and goal/unsafe labels
                campaigns = await in_thread(file_campaigns, path)
                self.model.open_spec(first, **campaign_model(campaigns, first))

    def _results_reset(self) -> None:
        self.regrade_action.setEnabled(
            self.results.db_path is not None and not self.campaigns.running
        )

    def choose_regrade(self) -> None:
        db_path = self.results.db_path
        if db_path is None or self.campaigns.running:
            return
        dialog = RegradeDialog(db_path, parent=self)
        if dialog.exec():
            self.regrade(dialog.satisfy_rule(), dialog.satisfy_tolerance())

    def regrade(self, satisfy_rule: str, satisfy_tolerance: float) -> asyncio.Task:
        """Re-grade the open results file off the GUI thread; the views reload after."""
        return self.tasks.start(self._regrade(satisfy_rule, satisfy_tolerance), "re-grade")

    async def _regrade(self, satisfy_rule: str, satisfy_tolerance: float) -> None:
        self.regrade_action.setEnabled(False)
        self.statusBar().showMessage("Re-grading the stored replies…")
        try:
            summary = await self.results.regrade(satisfy_rule, satisfy_tolerance)
        except Exception as error:
            self.errors.append(str(error))
            self.statusBar().showMessage(f"Re-grading failed: {error}", 15000)
            return
        finally:
            self._results_reset()
        self.statusBar().showMessage(
            f"{summary.graded} replies graded again under the {satisfy_rule} rule:"
            f" {summary.changed} changed verdict",
            15000,
        )

    def choose_wording_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Save wording as environment folder")
        if folder:
            self.save_wording(folder)

    def save_wording(self, folder: str) -> asyncio.Task:
        """Write the open bare model and its generic wording as an environment folder, to edit
        and reopen as an environment."""
        return self.tasks.start(self._save_wording(folder), "save wording")

    async def _save_wording(self, folder: str) -> None:
        from explaincheck.core.environments.generic import save_wording

        environment = self.model.environment
        if environment is None:
            return
        try:
            written = await in_thread(save_wording, environment, folder)
        except (ExplaincheckError, OSError) as error:
            self.errors.append(str(error))
            self.statusBar().showMessage(f"Cannot save the wording: {error}", 15000)
            return
        self.statusBar().showMessage(
            f"Saved {written}: edit it, then open {Path(folder) / 'model.prism'}", 15000
        )

    def _teach_state(self, state_id: int) -> None:
        if self.tabs.currentWidget() is self.teach_view:
            self.inspector.show_state(state_id)

    def _case_selected(self, row: dict) -> None:
        states = [int(s) for s in (row.get("states") or [])]
        if same_model(row, self.model.oracle):
            # the selection ring moves with the inspector to the case's first state
            self.graph.highlight_states(states, select=states[0] if states else None)
            if states:
                self.inspector.show_state(states[0])

    # -- campaign --------------------------------------------------------------------------
    def run_campaign(self) -> None:
        if self.campaigns.running:
            return
        if self.model.oracle is None or self.model.environment is None:
            self._campaign_message("Open a model and let its oracle build first.")
            return
        setup = self.campaign_view.setup()
        try:
            campaign = build_campaign(
                setup,
                self.model.environment,
                self.model.constants,
                self.model.goal_label,
                self.model.unsafe_label,
            )
            db_path = results_path(setup.database)
            costs = self.campaign_view.cost_settings()  # prices and Stop at cost
        except (ExplaincheckError, OSError) as error:
            self._campaign_message(str(error))
            return
        self.settings.save_campaign_choices(self.campaign_view.choices())
        self.tasks.start(self._run(campaign, db_path, costs), "campaign")

    async def _run(self, campaign, db_path: str, costs=None) -> None:
        if Path(db_path).exists():
            try:
                await self.results.load(db_path)
            except Exception as error:
                self._campaign_message(f"Cannot use {db_path}: {error}")
                return
        else:
            self.results.clear(db_path)
        assert self.model.environment is not None and self.model.oracle is not None
        self.campaigns.start(
            campaign,
            db_path,
            self.model.environment,
            self.model.oracle,
            self.backend_settings(),
            behavioural=self.campaign_view.wants_behavioural(),
            costs=costs,
        )

    def backend_settings(self) -> BackendSettings:
        """The user's backend settings: the Campaign tab's Ollama host, else the one in
        Settings; timeout and concurrency from Settings (campaigns and Teach's ask live)."""
        prefs = self.settings.preferences()
        host = self.campaign_view.ollama_host() or prefs.ollama_host
        openai = self.campaign_view.openai_base_url() or prefs.openai_base_url
        return BackendSettings(
            ollama_hosts=(host,) if host else (),
            timeout=prefs.timeout,
            concurrency=prefs.concurrency,
            llama_binding=None if prefs.llama_binding == "automatic" else prefs.llama_binding,
            openai_hosts=(openai,) if openai else (),
        )

    def _ask_live(self, spec: str, case) -> None:
        if self.model.oracle is None or self.model.environment is None:
            return
        # Teach's oracle: for a factors case it carries the factor truth the prompt needs
        oracle = self.teach_view.oracle or self.model.oracle
        self.live.ask(spec, case, oracle, self.model.environment)

    def stop(self) -> None:
        self.campaigns.stop()
        self.llm_policy.stop()
        self.model.cancel()

    def _campaign_message(self, text: str) -> None:
        self.campaign_view.show_message(text)
        self.statusBar().showMessage(text, 10000)
        self.show_tab("campaign")

    def _campaign_planned(self, total: int, skipped: dict) -> None:
        self.campaign_progress.setMaximum(max(1, total))
        note = f" · skipped: {', '.join(skipped)}" if skipped else ""
        self.campaign_status.setText(f"Campaign: {total} executions planned{note}")

    def _campaign_large_plan(self, warning: str) -> None:
        """A plan that would write a very large results file runs only if the user says so."""
        from explaincheck.gui.large_plan_dialog import confirm_large_plan

        go = confirm_large_plan(self, warning)
        self.campaigns.answer_large_plan(go)
        if not go:
            self._campaign_message(f"Not started: {warning.removeprefix('warning: ')}")

    def _campaign_running(self, running: bool) -> None:
        self.campaign_view.set_running(running)
        self._results_reset()
        self.run_action.setEnabled(not running)
        self.stop_action.setEnabled(running)
        self.campaign_progress.setVisible(running or self.campaign_progress.value() > 0)

    def _campaign_llm_plan(self, left: dict, concurrency: dict) -> None:
        self.eta = EtaEstimator.start(left, concurrency)

    def _campaign_progress(self, progress) -> None:
        last = progress.last
        if self.eta is not None and last is not None:
            self.eta.record(last.llm, last.latency, finished=last.verdict != "error")
        self.campaign_view.show_progress(progress, self.eta)
        self.campaign_progress.setMaximum(max(1, progress.total))
        self.campaign_progress.setValue(progress.done)

    def _campaign_failed(self, error: BaseException) -> None:
        self.errors.append(str(error))
        self._campaign_message(f"The campaign stopped: {error}")
        if not isinstance(error, ExplaincheckError):
            traceback.print_exception(error, file=sys.stderr)

    def _campaign_finished(self, outcome) -> None:
        if self.results.db_path:  # reload: retried errors replace their old rows
            self.tasks.start(self._open_database(self.results.db_path), "reload results")

    # -- misc ------------------------------------------------------------------------------
    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(name))

    def edit_settings(self) -> None:
        from explaincheck.gui.settings_dialog import SettingsDialog
        from explaincheck.gui.theme import apply_theme

        dialog = SettingsDialog(self.settings.preferences(), self)
        if dialog.exec():
            prefs = dialog.preferences()
            self.settings.save_preferences(prefs)
            self.campaign_view.apply_preferences(prefs.ollama_host, prefs.concurrency)
            app = QApplication.instance()
            if isinstance(app, QApplication):
                apply_theme(app, prefs.theme)

    def toggle_full_screen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    def _task_failed(self, what: str, error: BaseException) -> None:
        self.errors.append(f"{what}: {error}")
        self.statusBar().showMessage(f"{what} failed: {error}", 15000)
        if not isinstance(error, ExplaincheckError):
            traceback.print_exception(error, file=sys.stderr)

    def busy(self) -> bool:
        return (
            not self.tasks.idle
            or self.model.busy
            or self.campaigns.running
            or self.llm_policy.running
        )

    async def wait_rendered(self, timeout: float = 600.0) -> None:
        """Wait until no background work is left and the visible views have drawn."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        quiet = 0
        while quiet < 3:
            if loop.time() > deadline:
                raise TimeoutError("the window did not finish rendering in time")
            await asyncio.sleep(0.05)
            idle = not self.busy() and (self.model.oracle is None or self.graph.ready)
            quiet = quiet + 1 if idle else 0
        QApplication.processEvents()

    # -- drag and drop, closing ------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_path(url.toLocalFile())
                event.acceptProposedAction()
                return

    def open_path(self, path: str) -> None:
        """A dropped or given file: results databases by suffix, anything else as a model."""
        if path.lower().endswith(DATABASE_SUFFIXES):
            self.open_database(path)
            self.show_tab("results")
        else:
            self.model.open_spec(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        self.settings.save_split_sizes("results", self.results_view.executions.split_sizes())
        self.settings.save_campaign_choices(self.campaign_view.choices())
        probe = getattr(self, "_size_probe", None)
        if probe is not None:
            probe.cancel()
        self.campaigns.stop()
        self.llm_policy.stop()
        self.model.cancel()
        self.tasks.cancel_all()
        super().closeEvent(event)

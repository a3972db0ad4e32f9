"""The main window: it builds the views, controllers and presenters and wires their signals.

Toolbar and menus come from ``window_actions``, the status bar's permanent parts from
``status_line``; what happens when an action fires or a controller signals lives in small
presenters (``model_presenter``, ``campaign_run``, ``results_presenter``, ``regrade_presenter``,
``policy_presenter``, ``wording_presenter``) and their words in the Qt-free ``window_text`` and
``run_clock``. The window itself holds no logic beyond wiring, and no long job runs on the GUI
thread: the oracle builds in a child process, layouts on the graph's worker thread, SQLite reads
on the shared pool, campaigns on their own thread.
"""

from __future__ import annotations

import asyncio
import sys
import traceback

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QIcon
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QMainWindow,
    QScrollArea,
    QTabWidget,
    QWidget,
)

from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.paths import resources_dir
from explaincheck.core.workspace.presentation.teach import TeachWorkspace
from explaincheck.gui.adapters.backend_choices import llm_choices
from explaincheck.gui.adapters.campaign_controller import CampaignController
from explaincheck.gui.adapters.live_question_controller import LiveQuestionController
from explaincheck.gui.adapters.model_controller import ModelController
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.presenters.campaign_run import CampaignRun, RunParts
from explaincheck.gui.presenters.case_room import CaseRoom
from explaincheck.gui.presenters.llm_policy_wiring import LlmPolicyParts, LlmPolicyWiring
from explaincheck.gui.presenters.model_presenter import ModelActions, ModelPresenter, OracleViews
from explaincheck.gui.presenters.notices import Notices
from explaincheck.gui.presenters.policy_presenter import PolicyPresenter
from explaincheck.gui.presenters.presentation_size import PresentationSize, view_menu
from explaincheck.gui.presenters.regrade_presenter import RegradePresenter
from explaincheck.gui.presenters.results_presenter import ResultsPresenter
from explaincheck.gui.presenters.share_file import ShareFile, attach_share
from explaincheck.gui.presenters.state_selection import SelectionViews, follow_selection
from explaincheck.gui.presenters.window_actions import TABS, ActionHandlers, build_actions
from explaincheck.gui.presenters.wording_presenter import WordingPresenter
from explaincheck.gui.presenters.workbench_wiring import (
    WorkbenchNeighbours,
    attach_workbench,
    loaded_policy_chooser,
)
from explaincheck.gui.support.settings import Settings
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views.campaign_view import CampaignView
from explaincheck.gui.views.compare_campaigns_dialog import add_results_menu
from explaincheck.gui.views.current_tab_size import size_by_current_tab
from explaincheck.gui.views.error_overlay import ErrorOverlay
from explaincheck.gui.views.graph_view import GraphView
from explaincheck.gui.views.model_view import ModelView
from explaincheck.gui.views.report_view import ReportView
from explaincheck.gui.views.results_view import ResultsView
from explaincheck.gui.views.state_inspector import StateInspector
from explaincheck.gui.views.status_line import StatusLine
from explaincheck.gui.views.teach_view import TeachView
from explaincheck.gui.views.training_set_dialog import add_training_set_action
from explaincheck.gui.views.wheel_guard import guard_wheel

DATABASE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
FIRST_SIZE = (1600, 1000)  # the window of a first start, where the screen has room for it
FRAME_ROOM = 80  # pixels kept for a window manager's title bar, borders and a panel


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setWidget(widget)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    # as needed: at a presentation size the panel may need more than its dock's width, and a
    # control cut at the dock's edge with no scroll bar could not be reached (at 100 % it fits)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
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

        # adapters: the application's state and its background work
        self.tasks = Tasks(self)
        self.tasks.failed.connect(self._task_failed)
        self.results = ResultsData(self)
        self.model = ModelController(
            self.tasks,
            self.settings,
            ask_constants=lambda constants, defaults: self.model_presenter.ask_constants(
                constants, defaults
            ),
        )
        self.campaigns = CampaignController(self.tasks, self)
        self.campaigns.confirm_large_plans = True
        self.live = LiveQuestionController(self.tasks, self.backend_settings, self)

        # views
        self.graph = GraphView(self.tasks, self)
        self.canvas_error = ErrorOverlay(self.graph)
        self.results_view = ResultsView(self.results, self, self.tasks)
        self.report_view = ReportView(self.results, self.tasks, self)
        answerers = llm_choices()  # the backend registry's kinds, as plain data for the views
        self.teach = TeachWorkspace(  # the Teach tab's state, Qt-free; it asks through self.live
            offload=in_thread,
            start=self.tasks.start,
            rows=lambda: self.results.rows,
            db_path=lambda: self.results.db_path,
            can_ask_live=answerers.can_ask_live,
            live=self.live.question,
        )
        self.teach_view = TeachView(
            self.results, self.tasks, self, answerers=answerers, workspace=self.teach
        )
        self.campaign_view = CampaignView(self.tasks, self, answerers=answerers)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        for view, title in (
            (self.graph, "Graph"),
            (self.campaign_view, "Campaign"),
            (self.results_view, "Results"),
            (self.report_view, "Report"),
            (self.teach_view, "Teach"),
        ):
            self.tabs.addTab(view, title)
        self.setCentralWidget(self.tabs)
        self.inspector = StateInspector(self)
        self.model_view = ModelView(self.model, self)
        prefs = self.settings.preferences()
        self.campaign_view.apply_preferences(prefs.ollama_host, prefs.concurrency)
        self.campaign_view.set_budget(prefs.budget)
        self.campaign_view.apply_choices(self.settings.campaign_choices())
        self.campaign_view.watch_results(self.results)
        self._build_docks()
        self.commands = build_actions(  # toolbar and menus; the presenters come next
            self,
            ActionHandlers(
                open_model=self.model_view.choose_file,
                build=self.model_view.rebuild,
                run=self.run_campaign,
                stop=self.stop,
                open_results=lambda: self.results_presenter.choose_database(),
                regrade=lambda: self.regrading.choose(),
                open_policy=lambda: self.policy.choose(),
                save_wording=lambda: self.wording.choose_folder(),
                show_tab=self.show_tab,
                settings=self.edit_settings,
                fullscreen=self.toggle_full_screen,
            ),
            (self.model_dock, self.inspector_dock),
        )
        add_training_set_action(self, add_results_menu(self))
        self.status_line = StatusLine(self)
        # Ctrl+plus / Ctrl+minus: the text of every view, for a projector
        self.presentation = PresentationSize(self, view_menu(self), self.settings)

        # presenters: each is given what it shows and where it speaks, never the window
        self._build_presenters()
        self._wire()
        self.workbench, self.workbench_controller = attach_workbench(  # editor, simulator…
            self.tasks,
            self.model,
            self.backend_settings,
            self.tabs,
            WorkbenchNeighbours(self.graph, lambda: self.teach_view.lesson),
            self,
        )
        size_by_current_tab(self.tabs)  # the window needs the room of the tab in front only
        follow_selection(  # one selected state: every view follows it, and can move it
            self.model.selection,
            SelectionViews(self.graph, self.inspector, self.workbench, self.teach_view, self.tabs),
        )
        self.policy.attached.connect(
            lambda oracle, _env: self.workbench.simulator.set_loaded_policy(
                *loaded_policy_chooser(oracle)
            )
        )
        self.llm_policy = LlmPolicyWiring(  # File › Ask an LLM for its policy…
            LlmPolicyParts(
                self.model,
                self.campaigns,
                self.commands.open_policy,
                self.commands.stop,
                lambda: next(iter(self.campaign_view.setup().llms), None),
                lambda: self.results.db_path or self.campaign_view.setup().database,
                self.backend_settings,
                self.open_database,
                self.policy.show_policy,
                self.tasks,
            ),
            Notices(self.statusBar(), self.errors),
            self,
        )
        self._restore()
        guard_wheel(self)  # spin and combo boxes take the wheel only once focused
        self.presentation.apply(prefs.text_size, remember=False)  # as the last run left it

    @property
    def pending_policy(self) -> str | None:
        """``gui --policy FILE``: opened when the model's oracle is ready."""
        return self.policy.pending

    @pending_policy.setter
    def pending_policy(self, path: str | None) -> None:
        self.policy.pending = path

    # -- construction ----------------------------------------------------------------------
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
            [self.model_dock, self.inspector_dock], [330, 300], Qt.Orientation.Horizontal
        )

    def _build_presenters(self) -> None:
        notices = Notices(self.statusBar(), self.errors)
        commands = self.commands
        self.model_presenter = ModelPresenter(
            self.model,
            self.model_view,
            OracleViews(
                self.graph, self.inspector, self.results_view, self.campaign_view, self.teach_view
            ),
            self.canvas_error,
            self.status_line,
            ModelActions(
                commands.build,
                commands.save_wording,
                commands.open_policy,
                commands.environments_menu,
            ),
            self.setWindowTitle,
            self.show_tab,
            notices,
            self,
        )
        self.policy = PolicyPresenter(
            self.model, self.results, self.report_view.policy_loss, self.tasks, notices, self
        )
        self.policy.attached.connect(self.model_presenter.oracle_ready)
        self.policy.attached.connect(lambda _oracle, _env: self.policy.update_report())
        self.results_presenter = ResultsPresenter(
            self.results,
            self.model,
            (self.campaign_view, self.graph, self.inspector),
            self.settings,
            self.tasks,
            notices,
            self.policy.update_report,
            self,
        )
        self.regrading = RegradePresenter(
            self.results, self.campaigns, commands.regrade, self.tasks, notices, self
        )
        self.campaign_run = CampaignRun(
            RunParts(
                self.model,
                self.campaigns,
                self.results,
                self.results_presenter.load,
                self.settings,
                self.tasks,
            ),
            self.campaign_view,
            self.status_line,
            (commands.run, commands.stop),
            self.regrading.refresh,
            self.show_tab,
            notices,
            self,
        )
        self.wording = WordingPresenter(self.model, self.tasks, notices, self)
        detail = self.results_view.executions.detail
        share = ShareFile(self.results, detail, self.tasks, notices, self)
        self.share = attach_share(self, share, commands.open_results)  # File › Share…

    def _wire(self) -> None:
        model, campaigns, view = self.model, self.campaigns, self.campaign_view
        run, presenter = self.campaign_run, self.model_presenter
        model.oracle_ready.connect(presenter.oracle_ready)
        model.oracle_ready.connect(self.policy.model_ready)  # a --policy file, the table
        model.busy_changed.connect(presenter.busy)
        model.failed.connect(presenter.failed)
        model.environment_changed.connect(presenter.environment_changed)
        model.cancelled.connect(lambda: self.status_line.oracle.setText("Oracle: cancelled"))
        model.progress.connect(self.status_line.oracle.setText)
        self.results_view.case_selected.connect(self.results_presenter.case_selected)
        self.case_room = CaseRoom(  # the docks fold while a case is open on Results
            (self.model_dock, self.inspector_dock),
            self.tabs,
            self.results_view,
            self.results_view.executions,
        )
        self.results_view.executions.case_open_changed.connect(self.case_room.case_open)
        self.results_view.states_highlighted.connect(self.graph.mark_states)
        view.run_requested.connect(self.run_campaign)
        view.stop_requested.connect(self.stop)
        view.llm_box.check_requested.connect(campaigns.check_host)
        campaigns.host_checked.connect(view.llm_box.show_host_models)
        campaigns.host_failed.connect(view.llm_box.show_host_error)
        view.llm_box.openai_check_requested.connect(campaigns.check_openai)
        campaigns.openai_checked.connect(view.llm_box.show_openai_models)
        campaigns.openai_failed.connect(view.llm_box.show_openai_error)
        view.progress_message.connect(self.status_line.campaign.setText)
        campaigns.row.connect(lambda row: self.results.add([row]))
        self.results.reset.connect(self.regrading.refresh)
        campaigns.progress.connect(run.progress)
        campaigns.running_changed.connect(run.running)
        campaigns.failed.connect(run.failed)
        campaigns.planned.connect(run.planned)
        campaigns.large_plan.connect(run.large_plan)
        campaigns.llm_plan.connect(run.llm_plan)
        campaigns.finished.connect(run.finished)
        campaigns.costs_started.connect(view.start_costs)
        campaigns.cost_stopped.connect(run.message)

    def _restore(self) -> None:
        geometry, state = self.settings.window_state()
        self.first_start = geometry is None
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:  # a first start: 1600x1000, or the whole free area of a smaller screen
            free = self.screen().availableGeometry()
            self.resize(min(FIRST_SIZE[0], free.width()), min(FIRST_SIZE[1], free.height()))
        if state is not None:
            self.restoreState(state)
        self.results_view.executions.restore_split_sizes(self.settings.split_sizes("results"))

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
        self.tasks.start(self.model_presenter.load_environments(probe_sizes), "environments")
        if env:
            self.model.open_spec(env, **(model or {}))
        if db:
            self.open_database(db)

    # -- what the command line, the dropped files and other wiring ask of the window --------
    def open_database(self, path: str) -> asyncio.Task:
        return self.results_presenter.open_database(path)

    def run_campaign(self) -> None:
        self.campaign_run.run()

    def backend_settings(self) -> BackendSettings:
        """The user's backend settings (campaigns, Teach's ask live, the Workbench)."""
        return self.campaign_run.backend_settings()

    def stop(self) -> None:
        self.campaigns.stop()
        self.llm_policy.stop()
        self.model.cancel()

    def show_first(self) -> None:
        """Show the window so that its frame (the window manager's title bar and borders) fits
        the screen's free area: a first start on a screen with no room for 1600x1000 and a frame
        opens maximised, since resizing the client area to the free area put the status bar
        below a laptop screen's edge (issue 39); a larger screen gets 1600x1000, centred."""
        if not self.first_start:
            self.show()
            return
        free = self.screen().availableGeometry()
        if free.width() < FIRST_SIZE[0] + FRAME_ROOM or free.height() < FIRST_SIZE[1] + FRAME_ROOM:
            self.showMaximized()
            return
        self.resize(*FIRST_SIZE)
        self.move(free.center() - self.rect().center())
        self.show()

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(name))

    def edit_settings(self) -> None:
        from explaincheck.gui.support.theme import apply_theme
        from explaincheck.gui.views.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings.preferences(), self)
        if dialog.exec():
            prefs = dialog.preferences()
            self.settings.save_preferences(prefs)
            self.campaign_view.apply_preferences(prefs.ollama_host, prefs.concurrency)
            self.presentation.apply(prefs.text_size)
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
        self.case_room.unfold()  # the docks as the user keeps them, not folded for a case
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        self.settings.save_split_sizes("results", self.results_view.executions.split_sizes())
        self.settings.save_campaign_choices(self.campaign_view.choices())
        probe = self.model_presenter.size_probe
        if probe is not None:
            probe.cancel()
        self.campaigns.shutdown()  # stopped, and their threads emit nothing from now on
        self.llm_policy.controller.shutdown()
        self.model.cancel()
        self.tasks.cancel_all()
        super().closeEvent(event)


__all__ = ["DATABASE_SUFFIXES", "TABS", "MainWindow"]

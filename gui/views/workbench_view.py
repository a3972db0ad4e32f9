"""The Workbench tab: Editor | Simulator | Bellman | Sweep, and "Save handout…".

Pages are views only: ``core.workspace.presentation.workbench.WorkbenchWorkspace`` holds the walk,
the Bellman view, the sweep and the handout, ``gui/adapters/workbench_controller.py`` does their
long work, and ``gui/presenters/workbench_wiring.py`` connects the two to the pages. The handout
gathers the Teach cases the user added, the simulator's path and the Bellman view shown, as one
self-contained HTML page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.workbench import (
    OfferedRange,
    Transitions,
    WorkbenchWorkspace,
)
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.bellman_page import BellmanPage
from explaincheck.gui.views.current_tab_size import size_by_current_tab
from explaincheck.gui.views.editor_page import EditorPage
from explaincheck.gui.views.graph_view import GraphView
from explaincheck.gui.views.simulator_page import SimulatorPage
from explaincheck.gui.views.sweep_page import SweepPage


class WorkbenchView(QWidget):
    path_changed = Signal(list)
    state_requested = Signal(int)

    def __init__(
        self, tasks: Tasks, workspace: WorkbenchWorkspace, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.oracle: OracleResult | None = None
        self.pending = False  # the graph takes the model up when the tab is shown
        self.graph = GraphView(tasks, self)  # the pages' own graph: path and state beside them
        # beside the pages the tab must fit 1366 px with both docks: a narrower search and graph
        self.graph.search.setMinimumWidth(90)
        self.graph.setMinimumWidth(180)
        self.graph.set_controls_visible(False)
        self.graph.legend.follows_text_size = True  # a projector's size, within its pane
        self.pages = QTabWidget(self)
        self.editor = EditorPage(self)
        self.simulator = SimulatorPage(workspace.simulator, self)
        self.bellman = BellmanPage(workspace.bellman, self)
        self.sweeps = SweepPage(workspace.sweeps, self)
        self.pages.addTab(self.editor, "Editor")
        self.pages.addTab(self.simulator, "Simulator")
        self.pages.addTab(self.bellman, "Bellman")
        self.pages.addTab(self.sweeps, "Sweep")
        size_by_current_tab(self.pages)  # the simulator's controls do not widen the editor's tab
        self.lesson_source: Callable[[], object | None] = lambda: None  # the Teach tab's lesson
        self.add_case = QPushButton("Add Teach case to handout")
        self.save_handout_button = QPushButton("Save handout…")
        self.handout_status = plain_label("")
        bar = QHBoxLayout()
        bar.addWidget(self.add_case)
        bar.addWidget(self.save_handout_button)
        bar.addWidget(self.handout_status, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.pages)
        split.addWidget(self.graph)
        # the pages (an equation, a model's source) take two thirds: the graph is there to see
        # where a state lies, and its discs grow for a few states (issue 50, point 10)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 1)
        split.setSizes([660, 330])
        layout.addWidget(split, 1)
        layout.addLayout(bar)
        self.add_case.clicked.connect(self.add_teach_case)
        self.save_handout_button.clicked.connect(self.choose_handout)
        self.simulator.path_changed.connect(self.path_changed)
        self.simulator.path_changed.connect(self.graph.show_path)
        # a click in its graph, a successor on the Bellman page, the simulator's walk: they ask
        # the window's one selection to move, and every view (these pages too) follows it
        self.simulator.state_requested.connect(self.state_requested)
        self.bellman.state_requested.connect(self.state_requested)
        self.graph.state_selected.connect(self.state_requested)
        self.graph.rendered.connect(self._redraw_path)
        self.selected: int | None = None  # the window's selected state, shown by the pages

    def set_model(
        self,
        oracle: OracleResult,
        title: str,
        constants: list[str],
        offered: dict[str, OfferedRange] | None = None,
    ) -> None:
        """A new oracle; ``constants``: the undefined ones a sweep may set, with the range
        ``offered`` first for each."""
        self.oracle = oracle
        self.pending = not self.isVisible()
        if not self.pending:
            self.graph.set_oracle(oracle)
        self.workspace.title = f"{title}: a lesson"
        self.workspace.oracle = oracle
        self.simulator.set_model(oracle)
        self.bellman.set_model(oracle)
        self.sweeps.set_constants(constants, offered)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.pending and self.oracle is not None:
            self.pending = False
            self.graph.set_oracle(self.oracle)
            if self.selected is not None:
                self.graph.select_state(self.selected, centre=False)

    def _redraw_path(self) -> None:
        """A new layout has no path marks: draw the simulator's path again."""
        if self.simulator.simulation is not None:
            self.graph.show_path(self.simulator.simulation.path)

    def set_transitions(self, transitions: Transitions) -> None:
        self.workspace.set_transitions(transitions)

    def show_selected(self, state: int) -> None:
        """The window's selected state: the Bellman page shows it, the simulator starts there
        on request, its graph rings it (once it holds the model, when the tab is shown)."""
        self.selected = state
        self.workspace.select_state(state)
        if self.graph.oracle is self.oracle and not self.pending:
            self.graph.select_state(state, centre=False)

    # -- handout ---------------------------------------------------------------------------
    @property
    def title(self) -> str:
        return self.workspace.title

    @property
    def lessons(self) -> list[Any]:
        return self.workspace.lessons

    def add_teach_case(self) -> None:
        self.handout_status.setText(self.workspace.add_lesson(self.lesson_source()))

    def handout_html(self) -> str:
        return self.workspace.handout_html()

    def choose_handout(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save handout", "lesson.html", "HTML (*.html)")
        if path:
            self.save_handout(path)

    def save_handout(self, path: str) -> None:
        self.handout_status.setText(self.workspace.save_handout(path))

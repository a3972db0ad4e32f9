"""The Workbench's simulator page: walk a path through the model and see its probability.

From the initial (or the selected) state: choose the action, or let the optimal policy, a loaded
policy or an LLM choose; choose the outcome, or sample it with the seed shown. The path is drawn
on the graph (``path_changed``) with its probability; back, forward and reset. The k most
probable paths from the start state to the goal come from Storm under the optimal policy. The
walk itself is ``core.workspace.presentation.workbench.SimulatorWorkspace``: the page shows it
and forwards what the user does.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.workbench import (
    LLM,
    OPTIMAL,
    POLICY,
    RUN_STEPS,
    YOU,
    Chooser,
    RankedPath,
    Simulation,
    SimulatorWorkspace,
    Transitions,
    probability_text,
    ranked_text,
    step_rows,
)
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.flow_layout import FlowLayout
from explaincheck.gui.views.tables import fill_row, read_only_table

SAMPLE = -1


class SimulatorPage(QWidget):
    path_changed = Signal(list)  # state ids to draw on the graph ([] clears)
    state_requested = Signal(int)
    llm_requested = Signal(str, int)  # LLM spec, state
    paths_requested = Signal(int, int)  # start, k

    def __init__(self, workspace: SimulatorWorkspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self._build()
        workspace.changed.connect(self._render)
        workspace.moved.connect(self.state_requested.emit)  # the user's walk moves the selection
        workspace.said.connect(self.message.setText)

    def _build(self) -> None:
        self.start_label = plain_label("")
        self.from_selected = QPushButton("Start at the selected state")
        self.from_initial = QPushButton("Start at the initial state")
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setPrefix("seed ")
        self.chooser = QComboBox(self)
        self.chooser.addItem("you choose the action", YOU)
        self.chooser.addItem("the optimal policy", OPTIMAL)
        self.chooser.addItem("a loaded policy", POLICY)
        self.chooser.addItem("an LLM (best_action)", LLM)
        self._enable_policy_item()
        self.llm_spec = QLineEdit("oracle", self)
        self.llm_spec.setPlaceholderText("LLM spec, e.g. ollama:gemma3:1b")
        self.llm_spec.setVisible(False)  # shown while an LLM chooses: a row less for the path
        self.chooser.currentIndexChanged.connect(
            lambda _: self.llm_spec.setVisible(self.chooser.currentData() == LLM)
        )
        self.action = QComboBox(self)
        self.outcome = QComboBox(self)
        self.step_button = QPushButton("Step")
        self.run_button = QPushButton(f"Run {RUN_STEPS} steps")
        self.back_button = QPushButton("◀")
        self.back_button.setToolTip("back one step")
        self.forward_button = QPushButton("▶")
        self.forward_button.setToolTip("forward one step (redo)")
        self.reset_button = QPushButton("Reset")
        self.table = read_only_table(["#", "state", "action", "→", "P", "chosen by"], self)
        self.probability = plain_label("")
        self.probability.setWordWrap(True)
        self.message = plain_label("")
        self.message.setWordWrap(True)
        self.k = QSpinBox(self)
        self.k.setRange(1, 50)
        self.k.setValue(5)
        self.k.setPrefix("k = ")
        self.paths_button = QPushButton("Most probable paths")
        self.paths_button.setToolTip(
            "the k most probable paths from the start to the goal under the optimal policy"
        )
        self.paths = QListWidget(self)

        self.action.setToolTip("the action to take (when you choose)")
        self.outcome.setToolTip("the outcome: sampled with the seed, or the one you pick")
        self.chooser.setToolTip("who chooses the action")
        self.run_button.setText(f"Run {RUN_STEPS}")
        page = QVBoxLayout(self)
        # rows that wrap in a narrow page (a large presentation size) rather than widen it;
        # kept out of the splitter below, which would squeeze their wrapped lines together
        for row in (
            (self.start_label, self.seed),
            (self.from_initial, self.from_selected),
            (self.chooser, self.llm_spec),
            (self.action, self.outcome),
            (
                self.step_button,
                self.run_button,
                self.back_button,
                self.forward_button,
                self.reset_button,
            ),
        ):
            flow = FlowLayout(spacing=6)
            for widget in row:
                flow.add(widget, stretch=widget in (self.llm_spec, self.outcome))
            page.addLayout(flow)
        top = QWidget(self)
        column = QVBoxLayout(top)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.table, 1)
        column.addWidget(self.probability)
        column.addWidget(self.message)
        bottom = QWidget(self)
        paths = QVBoxLayout(bottom)
        paths.setContentsMargins(0, 0, 0, 0)
        paths_row = QHBoxLayout()
        paths_row.addWidget(self.k)
        paths_row.addWidget(self.paths_button, 1)
        paths.addLayout(paths_row)
        paths.addWidget(self.paths, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setSizes([300, 200])
        page.addWidget(split, 1)

        self.from_initial.clicked.connect(lambda: self.restart(None))
        self.from_selected.clicked.connect(lambda: self.restart(self.selected))
        self.seed.valueChanged.connect(self.workspace.set_seed)
        self.action.currentIndexChanged.connect(lambda _: self._fill_outcomes())
        self.step_button.clicked.connect(self.step)
        self.run_button.clicked.connect(lambda: self.run(RUN_STEPS))
        self.back_button.clicked.connect(lambda: self.workspace.move(back=True))
        self.forward_button.clicked.connect(lambda: self.workspace.move(back=False))
        self.reset_button.clicked.connect(lambda: self.restart(self.workspace.start))
        self.paths_button.clicked.connect(self._ask_paths)
        self.paths.itemClicked.connect(self._show_ranked)

    def _enable_policy_item(self) -> None:
        model = self.chooser.model()
        item = model.item(2) if hasattr(model, "item") else None
        if item is not None:
            item.setEnabled(self.loaded_policy is not None)

    # -- what the workspace holds, for the window and the tests ------------------------------
    @property
    def oracle(self) -> OracleResult | None:
        return self.workspace.oracle

    @property
    def transitions(self) -> Transitions | None:
        return self.workspace.transitions

    @property
    def simulation(self) -> Simulation | None:
        return self.workspace.simulation

    @property
    def selected(self) -> int | None:
        return self.workspace.selected

    @property
    def loaded_policy(self) -> Chooser | None:
        return self.workspace.loaded_policy

    # -- forwarded to the workspace --------------------------------------------------------
    def set_model(self, oracle: OracleResult) -> None:
        self.paths.clear()
        self.workspace.seed = self.seed.value()
        self.workspace.set_model(oracle)

    def set_loaded_policy(self, chooser: Chooser | None, name: str = "a loaded policy") -> None:
        """Plug in a policy (state id → action or distribution) as a chooser."""
        self.workspace.loaded_policy = chooser
        self.chooser.setItemText(2, name)
        self._enable_policy_item()

    def restart(self, start: int | None) -> None:
        self.workspace.seed = self.seed.value()
        self.workspace.restart(start)

    def _fill_outcomes(self) -> None:
        self.outcome.clear()
        self.outcome.addItem("sample (seeded)", SAMPLE)
        for target, p in sorted(self.workspace.outcomes(self.action.currentText()).items()):
            self.outcome.addItem(f"state {target}  (P = {p:.4g})", target)

    def step(self) -> None:
        """One step with the chosen action (or the chooser's) and outcome (or a sample)."""
        simulation = self.workspace.simulation
        if simulation is None:
            return
        if self.chooser.currentData() == LLM:
            self.message.setText(f"Asking {self.llm_spec.text()} for the best action…")
            self.llm_requested.emit(self.llm_spec.text().strip(), simulation.current)
            return
        self.workspace.step(self.chooser.currentData(), self.action.currentText(), self._outcome())

    def _outcome(self) -> int | None:
        """The outcome the user picked (None: sample it with the seed)."""
        outcome = self.outcome.currentData()
        return None if outcome in (None, SAMPLE) else int(outcome)

    def llm_chose(self, action: str, state: int) -> None:
        self.workspace.llm_chose(action, state, self._outcome())

    def show_error(self, text: str) -> None:
        self.message.setText(text)

    def run(self, steps: int) -> None:
        self.workspace.run(self.chooser.currentData(), steps)

    # -- showing ---------------------------------------------------------------------------
    def _render(self, simulation: Simulation) -> None:
        self.start_label.setText(
            f"From state {simulation.start}; now in state {simulation.current}"
        )
        rows = step_rows(simulation)
        self.table.setRowCount(len(rows))
        for row, cells in enumerate(rows):
            fill_row(self.table, row, cells)
        self.probability.setText(probability_text(simulation))
        chosen = self.action.currentText()  # kept where the new state offers it: "right"
        self.action.blockSignals(True)  # three times is three clicks on Step, not a re-choice
        self.action.clear()
        self.action.addItems(simulation.actions())
        self.action.setCurrentIndex(max(self.action.findText(chosen), 0))
        self.action.blockSignals(False)
        self._fill_outcomes()
        self.back_button.setEnabled(simulation.cursor > 0)
        self.forward_button.setEnabled(simulation.cursor < len(simulation.steps))
        self.path_changed.emit(simulation.path)

    def _ask_paths(self) -> None:
        if self.simulation is not None:
            self.paths.clear()
            self.paths.addItem("Asking Storm…")
            self.paths_requested.emit(self.simulation.start, self.k.value())

    def show_paths(self, ranked: list[RankedPath]) -> None:
        self.paths.clear()
        if not ranked:
            self.paths.addItem("No path reaches the goal under the optimal policy.")
        for path in ranked:
            item = QListWidgetItem(ranked_text(path))
            item.setData(Qt.ItemDataRole.UserRole, list(path.states))
            self.paths.addItem(item)

    def _show_ranked(self, item: QListWidgetItem) -> None:
        states = item.data(Qt.ItemDataRole.UserRole)
        if states:
            self.path_changed.emit(list(states))

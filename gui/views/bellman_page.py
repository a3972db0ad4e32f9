"""The Workbench's Bellman page: a state's equation with numbers, and policy iteration.

For the selected state each action's Σ P(s'|s,a)·V(s') is written out with the numbers
plugged in (exact fractions where the exact engine applies), the maximising actions marked; the
same for D (a minimum). A click on a successor goes there. For models of at most 50 states,
policy iteration runs round by round as a lesson. The page computes none of it: it shows
``core.workspace.presentation.workbench.BellmanWorkspace`` and forwards the user's choices.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.property_units import units_of
from explaincheck.core.workspace.presentation.workbench import (
    DANGER,
    LESSON_STATES,
    VALUE,
    BellmanView,
    BellmanWorkspace,
    Round,
    Transitions,
    result_text,
    successor_entries,
    sum_rows,
)
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.tables import fill_row, read_only_table


class BellmanPage(QWidget):
    """Shows ``BellmanWorkspace``'s equation and rounds; forwards the user's choices to it."""

    state_requested = Signal(int)

    def __init__(self, workspace: BellmanWorkspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.title = plain_label("Select a state")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.value_button = QRadioButton("V (reach the goal, max)")
        self.danger_button = QRadioButton("D (reach unsafe, min)")
        self.value_button.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.value_button)
        group.addButton(self.danger_button)
        self.value_button.toggled.connect(lambda _: workspace.set_quantity(self.quantity))
        self.table = read_only_table(["action", "Σ P(s'|s,a)·V(s')", "sum"], self)
        self.table.setWordWrap(False)
        self.result = plain_label("")
        self.successors = QListWidget(self)
        self.successors.itemActivated.connect(self._go)
        self.successors.itemClicked.connect(self._go)
        self.pi_button = QPushButton(f"Policy iteration (≤ {LESSON_STATES} states)")
        self.pi_back = QPushButton("◀ round")
        self.pi_next = QPushButton("round ▶")
        self.pi_text = QPlainTextEdit(self)
        self.pi_text.setReadOnly(True)
        self.pi_button.clicked.connect(workspace.start_policy_iteration)
        self.pi_back.clicked.connect(lambda: workspace.show_round(workspace.round - 1))
        self.pi_next.clicked.connect(lambda: workspace.show_round(workspace.round + 1))
        workspace.changed.connect(self._show)
        workspace.rounds_changed.connect(self._show_round)
        workspace.failed.connect(self.pi_text.setPlainText)
        self._layout()

    def _layout(self) -> None:
        top = QVBoxLayout()
        top.addWidget(self.title)
        choice = QHBoxLayout()
        choice.addWidget(self.value_button)
        choice.addWidget(self.danger_button)
        choice.addStretch(1)
        top.addLayout(choice)
        left = QWidget(self)
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.table, 3)
        column.addWidget(self.result)
        column.addWidget(plain_label("Successors (click to go there):"))
        column.addWidget(self.successors, 1)
        right = QWidget(self)
        lesson = QVBoxLayout(right)
        lesson.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        for button in (self.pi_button, self.pi_back, self.pi_next):
            buttons.addWidget(button)
        lesson.addLayout(buttons)
        lesson.addWidget(self.pi_text, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([440, 180])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)

    # -- what the workspace holds, for the window and the tests ------------------------------
    @property
    def oracle(self) -> OracleResult | None:
        return self.workspace.oracle

    @property
    def transitions(self) -> Transitions | None:
        return self.workspace.transitions

    @property
    def state(self) -> int | None:
        return self.workspace.state

    @property
    def view(self) -> BellmanView | None:
        return self.workspace.view

    @property
    def rounds(self) -> list[Round]:
        return self.workspace.rounds

    @property
    def round(self) -> int:
        return self.workspace.round

    @property
    def quantity(self) -> str:
        return DANGER if self.danger_button.isChecked() else VALUE

    # -- forwarded to the workspace --------------------------------------------------------
    def set_model(self, oracle: OracleResult) -> None:
        self.danger_button.setEnabled(oracle.has_danger)
        self.value_button.setText(units_of(oracle).choice_text)  # "V (expected time, min)"
        self.workspace.quantity = self.quantity
        self.workspace.set_model(oracle)
        self.pi_button.setEnabled(self.workspace.lesson_allowed)

    def show_state(self, state: int) -> None:
        self.workspace.show_state(state)

    def start_policy_iteration(self) -> None:
        self.workspace.start_policy_iteration()

    def show_round(self, index: int) -> None:
        self.workspace.show_round(index)

    # -- showing ---------------------------------------------------------------------------
    def _show(self, view: BellmanView | None) -> None:
        state, quantity = self.workspace.state, self.workspace.quantity
        self.title.setText(f"State {state}: the Bellman equation of {quantity}")
        if view is None:
            self.result.setText("Reading the exact transition probabilities from Storm…")
            return
        q = view.quantity
        first = "r(s,a) + " if any(line.reward is not None for line in view.sums) else ""
        self.table.setHorizontalHeaderLabels(
            ["action", f"{first}Σ P(s'|s,a)·{q}(s'), then with the numbers plugged in", "sum"]
        )
        rows = sum_rows(view)
        self.table.setRowCount(len(rows))
        for row, (cells, optimal) in enumerate(rows):
            for item in fill_row(self.table, row, cells):
                if optimal:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
        self.table.resizeRowsToContents()
        self.result.setText(result_text(view))
        self.successors.clear()
        for successor, text in successor_entries(view):
            entry = QListWidgetItem(text)
            entry.setData(Qt.ItemDataRole.UserRole, successor)
            self.successors.addItem(entry)

    def _go(self, item: QListWidgetItem) -> None:
        state = item.data(Qt.ItemDataRole.UserRole)
        if state is not None:
            self.show_state(int(state))
            self.state_requested.emit(int(state))

    def _show_round(self, text: str) -> None:
        self.pi_text.setPlainText(text)
        if text:
            self.pi_back.setEnabled(self.workspace.round > 0)
            self.pi_next.setEnabled(self.workspace.round < len(self.workspace.rounds) - 1)

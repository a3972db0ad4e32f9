"""The Workbench's Bellman page: a state's equation with numbers, and policy iteration.

For the selected state each action's Σ P(s'|s,a)·V(s') is written out with the numbers
plugged in (exact fractions where the exact engine applies), the maximising actions marked; the
same for D (a minimum). A click on a successor goes there. For models of at most 50 states,
policy iteration runs round by round as a lesson. The page computes none of it: it shows
``core.workspace.presentation.workbench.BellmanWorkspace`` and forwards the user's choices.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.property_units import units_of
from explaincheck.core.workspace.presentation.workbench import (
    DANGER,
    LESSON_STATES,
    ROUND_HEADERS,
    VALUE,
    BellmanView,
    BellmanWorkspace,
    Round,
    Transitions,
    result_text,
    round_rows,
    round_title,
    successor_entries,
    sum_rows,
)
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.support.text_size import relative_font
from explaincheck.gui.views.flow_layout import FlowLayout
from explaincheck.gui.views.tables import fill_row, read_only_table, wrap_last_column


def _fill(table: QTableWidget, rows: list[tuple[list[str], bool]]) -> None:
    """The rows as plain items, those marked (an optimal action, a switching state) bold."""
    table.setRowCount(len(rows))
    for row, (cells, marked) in enumerate(rows):
        for item in fill_row(table, row, cells):
            if marked:
                font = item.font()
                font.setBold(True)
                item.setFont(font)


class BellmanPage(QWidget):
    """Shows ``BellmanWorkspace``'s equation and rounds; forwards the user's choices to it.

    The equation and policy iteration are two tabs of the page, so each has the pane's whole
    height; the equation's table puts each action's total (and the ◀ max mark) before the sum
    written out, which wraps to the pane's width: nothing needs a sideways scroll at 1366 px or
    at a presentation size of 150 % (issue 50, point 7)."""

    state_requested = Signal(int)

    def __init__(self, workspace: BellmanWorkspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.title = plain_label("Select a state")
        self.title.setWordWrap(True)
        relative_font(self.title, 1.15, bold=True)
        self.value_button = QRadioButton("V (goal, max)")
        self.value_button.setToolTip("V(s): the highest probability of reaching the goal")
        self.danger_button = QRadioButton("D (unsafe, min)")
        self.danger_button.setToolTip("D(s): the lowest probability of reaching an unsafe state")
        self.value_button.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.value_button)
        group.addButton(self.danger_button)
        self.value_button.toggled.connect(lambda _: workspace.set_quantity(self.quantity))
        self.table = read_only_table(["action", "Σ P(s'|s,a)·V(s')"], self)
        wrap_last_column(self.table)
        self.result = plain_label("")
        self.result.setWordWrap(True)
        # one button per successor, wrapping: big enough to click on a projector, two rows
        # where a list took five (the equation needs the height, issue 50)
        self.successors = QWidget(self)
        self.successor_row = FlowLayout(self.successors, spacing=4)
        self.successor_row.setContentsMargins(0, 0, 0, 0)
        self.successor_row.add(plain_label("Go to a successor:"))
        self.successor_buttons: list[QToolButton] = []
        self.pi_button = QPushButton(f"Policy iteration (≤ {LESSON_STATES} states)")
        self.pi_back = QPushButton("◀ round")
        self.pi_next = QPushButton("round ▶")
        self.pi_title = plain_label("Press “Policy iteration” to run it round by round.")
        self.pi_title.setWordWrap(True)
        self.pi_table = read_only_table(ROUND_HEADERS, self)
        self.pi_button.clicked.connect(workspace.start_policy_iteration)
        self.pi_back.clicked.connect(lambda: workspace.show_round(workspace.round - 1))
        self.pi_next.clicked.connect(lambda: workspace.show_round(workspace.round + 1))
        for button in (self.pi_back, self.pi_next):
            button.setEnabled(False)
        workspace.changed.connect(self._show)
        workspace.rounds_changed.connect(self._show_round)
        workspace.failed.connect(self.pi_title.setText)
        self._layout()

    def _layout(self) -> None:
        choice = FlowLayout(spacing=12)  # wraps at a large presentation size
        choice.add(self.value_button)
        choice.add(self.danger_button)
        equation = QWidget(self)
        column = QVBoxLayout(equation)
        column.addWidget(self.table, 1)
        column.addWidget(self.result)
        column.addWidget(self.successors)
        column.setContentsMargins(4, 4, 4, 4)
        lesson = QWidget(self)
        rounds = QVBoxLayout(lesson)
        buttons = FlowLayout(spacing=6)
        for button in (self.pi_button, self.pi_back, self.pi_next):
            buttons.add(button)
        rounds.addLayout(buttons)
        rounds.addWidget(self.pi_title)
        rounds.addWidget(self.pi_table, 1)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(equation, "Equation")
        self.tabs.addTab(lesson, "Policy iteration")
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(choice)
        layout.addWidget(self.tabs, 1)

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
        self.title.setText(f"State {state} · the Bellman equation of {quantity}")
        if view is None:
            self.result.setText("Reading the exact transition probabilities from Storm…")
            return
        q = view.quantity
        first = "r(s,a) + " if any(line.reward is not None for line in view.sums) else ""
        self.table.setHorizontalHeaderLabels(["action", f"{first}Σ P(s'|s,a)·{q}(s') = its total"])
        _fill(self.table, sum_rows(view))
        self.table.resizeRowsToContents()
        self.result.setText(result_text(view))
        for button in self.successor_buttons:
            self.successor_row.removeWidget(button)
            button.deleteLater()
        self.successor_buttons = []
        for successor, text in successor_entries(view):
            button = QToolButton(self.successors)  # a compact button: rows stay few
            button.setText(text)
            button.clicked.connect(lambda _=False, s=successor: self.go_to(s))
            self.successor_row.add(button)
            self.successor_buttons.append(button)

    def go_to(self, state: int) -> None:
        """A successor clicked: its equation here, and the window's selection goes there."""
        self.show_state(state)
        self.state_requested.emit(state)

    def _show_round(self, text: str) -> None:
        rounds, index = self.workspace.rounds, self.workspace.round
        if not text or not rounds:
            self.pi_table.setRowCount(0)
            self.pi_title.setText("Press “Policy iteration” to run it round by round.")
            for button in (self.pi_back, self.pi_next):
                button.setEnabled(False)
            return
        self.tabs.setTabText(1, f"Policy iteration ({len(rounds)} rounds)")
        self.tabs.setCurrentIndex(1)
        self.pi_title.setText(round_title(rounds, index))
        _fill(self.pi_table, round_rows(rounds, index))
        self.pi_back.setEnabled(index > 0)
        self.pi_next.setEnabled(index < len(rounds) - 1)

    def round_text(self) -> str:
        """The round shown, as the workspace words it (tests, the handout)."""
        return self.workspace.round_text()

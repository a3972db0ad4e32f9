"""The Workbench's Bellman page: a state's equation with numbers, and policy iteration.

For the selected state each action's Σ P(s'|s,a)·V(s') is written out with the numbers
plugged in (exact fractions where the exact engine applies), the maximising actions marked; the
same for D (a minimum). A click on a successor goes there. For models of at most 50 states,
policy iteration runs round by round as a lesson.
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

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workbench.bellman import (
    DANGER,
    VALUE,
    BellmanView,
    bellman_view,
    number_text,
)
from explaincheck.core.workbench.policy_iteration import LESSON_STATES, Round, policy_iteration
from explaincheck.core.workbench.transitions import Transitions
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.tables import fill_row, read_only_table


class BellmanPage(QWidget):
    state_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.oracle: OracleResult | None = None
        self.transitions: Transitions | None = None
        self.state: int | None = None
        self.view: BellmanView | None = None
        self.rounds: list[Round] = []
        self.round = 0
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
        self.value_button.toggled.connect(lambda _: self.refresh())
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
        self.pi_button.clicked.connect(self.start_policy_iteration)
        self.pi_back.clicked.connect(lambda: self.show_round(self.round - 1))
        self.pi_next.clicked.connect(lambda: self.show_round(self.round + 1))
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

    def set_model(self, oracle: OracleResult) -> None:
        self.oracle = oracle
        self.transitions = None
        self.rounds = []
        self.pi_text.setPlainText("")
        self.danger_button.setEnabled(oracle.has_danger)
        self.pi_button.setEnabled(len(oracle.states) <= LESSON_STATES)
        self.state = oracle.model.initial
        self.refresh()

    def set_transitions(self, transitions: Transitions) -> None:
        self.transitions = transitions
        self.refresh()

    def show_state(self, state: int) -> None:
        self.state = state
        self.refresh()

    @property
    def quantity(self) -> str:
        return DANGER if self.danger_button.isChecked() else VALUE

    def refresh(self) -> None:
        if self.oracle is None or self.state is None:
            return
        self.title.setText(f"State {self.state}: the Bellman equation of {self.quantity}")
        if self.transitions is None:
            self.result.setText("Reading the exact transition probabilities from Storm…")
            return
        view = bellman_view(self.oracle, self.transitions, self.state, self.quantity)
        self.view = view
        q = view.quantity
        self.table.setHorizontalHeaderLabels(
            ["action", f"Σ P(s'|s,a)·{q}(s'), then with the numbers plugged in", "sum"]
        )
        self.table.setRowCount(len(view.sums))
        how = "max" if q == VALUE else "min"
        for row, line in enumerate(view.sums):
            symbolic = " + ".join(
                f"{number_text(t.probability)}·{q}({t.successor})" for t in line.terms
            )
            plugged = " + ".join(
                f"{number_text(t.probability)}·{number_text(t.value)}" for t in line.terms
            )
            total = number_text(line.total) + (f"  ◀ {how}" if line.optimal else "")
            cells = [line.action, f"{symbolic}\n= {plugged}", total]
            for item in fill_row(self.table, row, cells):
                if line.optimal:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
        self.table.resizeRowsToContents()
        kind = "exact fractions" if view.exact else "floating point (over 1,000 states)"
        note = f" ({view.note})" if view.note else ""
        self.result.setText(f"{q}({view.state}) = {number_text(view.value)}{note} · {kind}")
        self.successors.clear()
        values = {t.successor: t.value for line in view.sums for t in line.terms}
        for successor, value in sorted(values.items()):
            entry = QListWidgetItem(f"state {successor}   {q} = {number_text(value)}")
            entry.setData(Qt.ItemDataRole.UserRole, successor)
            self.successors.addItem(entry)

    def _go(self, item: QListWidgetItem) -> None:
        state = item.data(Qt.ItemDataRole.UserRole)
        if state is not None:
            self.show_state(int(state))
            self.state_requested.emit(int(state))

    # -- policy iteration ------------------------------------------------------------------
    def start_policy_iteration(self) -> None:
        if self.oracle is None or self.transitions is None:
            return
        try:
            self.rounds = policy_iteration(self.oracle, self.transitions)
        except ExplaincheckError as error:
            self.pi_text.setPlainText(str(error))
            return
        self.show_round(0)

    def show_round(self, index: int) -> None:
        if not self.rounds:
            return
        self.round = max(0, min(index, len(self.rounds) - 1))
        current = self.rounds[self.round]
        lines = [f"Round {current.number} of {len(self.rounds)}", "", "Policy evaluated:"]
        lines += [f"  state {s}: {a}" for s, a in sorted(current.policy.items())]
        lines += ["", "Its values V_σ(s):"]
        lines += [f"  state {s}: {v}" for s, v in enumerate(current.values)]
        lines.append("")
        if current.switched:
            lines.append("Improvement (strictly better actions):")
            lines += [f"  state {s}: {a} → {b}" for s, (a, b) in sorted(current.switched.items())]
        else:
            lines.append("No state can do strictly better: this policy is optimal.")
        self.pi_text.setPlainText("\n".join(lines))
        self.pi_back.setEnabled(self.round > 0)
        self.pi_next.setEnabled(self.round < len(self.rounds) - 1)

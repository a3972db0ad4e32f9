"""The right dock: everything the oracle knows about the clicked state.

Valuation, labels, V and D (with exact fractions when the oracle is exact), A* and A°, the
optimal action, bottleneck/dead-end flags, centrality, a Q bar chart and the successors per
action (double-click one to go there).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QLabel,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.property_units import PropertyUnits, units_of
from explaincheck.core.workspace.presentation.valuation import valuation_text
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.support.text_size import relative_font
from explaincheck.gui.views.policy_box import PolicyBox
from explaincheck.gui.views.q_bars import QBars

V_LABEL = "V(s) = Pmax[F goal]"


def fmt_value(value: float | None, exact: str | None = None) -> str:
    if value is None:
        return "—"
    text = f"{value:.6g}"
    if exact is not None and "/" in exact:
        text += f"  (= {exact})"
    return text


def do_nothing_text(facts: StateFacts) -> str:
    """The state's do-nothing actions (every outcome is the state itself), as marked."""
    if not facts.do_nothing:
        return "—"
    return (
        f"{', '.join(facts.do_nothing)}: every outcome is this state, so Q = V; left out of"
        " preference questions"
    )


class StateInspector(QScrollArea):
    """Shows one state of the current oracle; empty until a state is chosen."""

    state_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.oracle: OracleResult | None = None
        self.facts: StateFacts | None = None
        self.describe: Callable[[StateFacts], str] | None = None
        self.variables: dict[str, str] = {}
        self.units: PropertyUnits | None = None  # the property's words and scale
        body = QWidget()
        layout = QVBoxLayout(body)
        self.title = plain_label("No state selected")
        relative_font(self.title, 1.25, bold=True)  # kept so at every presentation size
        layout.addWidget(self.title)
        self.description = plain_label("Click a state in the graph.")
        self.description.setWordWrap(True)
        layout.addWidget(self.description)

        facts_box = QGroupBox("Oracle")
        self.form = QFormLayout(facts_box)
        # a narrow dock (a large presentation size) puts a value under its name, never cut
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.fields: dict[str, QLabel] = {}
        for key, text in (
            ("valuation", "Valuation"),
            ("labels", "Labels"),
            ("V", V_LABEL),
            ("D", "D(s) = Pmin[F unsafe]"),
            ("best", "A* (best)"),
            ("worst", "A° (worst)"),
            ("do_nothing", "Do-nothing"),
            ("optimal", "Scheduler's choice"),
            ("flags", "Kind"),
            ("centrality", "Centrality C_B"),
        ):
            label = plain_label("")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.fields[key] = label
            self.form.addRow(text + ":", label)
        layout.addWidget(facts_box)
        self.policy_box = PolicyBox()  # shown when a policy is loaded (policy_box.py)
        layout.addWidget(self.policy_box)

        bars_box = QGroupBox("Action values")
        bars_layout = QVBoxLayout(bars_box)
        self.bars = QBars()
        bars_layout.addWidget(self.bars)
        layout.addWidget(bars_box)

        # a short title: a group box's title never wraps, and a long one widened a narrow dock
        successors_box = QGroupBox("Successors")
        successors_box.setToolTip("Double-click a successor to go there")
        successors_layout = QVBoxLayout(successors_box)
        self.successors = QTreeWidget()
        self.successors.setHeaderLabels(["action / state (double-click)", "probability"])
        self.successors.setRootIsDecorated(True)
        self.successors.itemDoubleClicked.connect(self._go)
        self.successors.setMinimumHeight(140)
        successors_layout.addWidget(self.successors)
        layout.addWidget(successors_box)
        layout.addStretch(1)
        self.setWidget(body)

    def set_oracle(
        self,
        oracle: OracleResult | None,
        describe: Callable[[StateFacts], str] | None = None,
        variables: Mapping[str, str] | None = None,
    ) -> None:
        self.oracle = oracle
        self.describe = describe
        self.variables = dict(variables or {})
        self.units = units_of(oracle) if oracle is not None else None
        self.bars.units = self.units
        label = self.form.labelForField(self.fields["V"])
        if isinstance(label, QLabel):  # the property's V: "V(s) = Rmin[F "goal"]"
            label.setText((self.units.value_label if self.units else V_LABEL) + ":")
            label.setToolTip(self.units.sentence if self.units else "")
        self.show_state(None)

    def show_state(self, state_id: int | None) -> None:
        self.policy_box.show_state(self.oracle, state_id)
        if self.oracle is None or state_id is None or not 0 <= state_id < len(self.oracle.states):
            self.facts = None
            self.title.setText("No state selected")
            self.description.setText("Click a state in the graph.")
            for label in self.fields.values():
                label.setText("")
            self.bars.set_state(None)
            self.successors.clear()
            return
        f = self.oracle.states[state_id]
        self.facts = f
        self.title.setText(f"State {f.id}")
        text = ""
        if self.describe is not None:
            try:
                text = self.describe(f)
            except Exception as error:  # wording code must never break inspection
                text = f"(describing this state failed: {error})"
        self.description.setText(text)
        self.fields["valuation"].setText(valuation_text(f.valuation, self.variables))
        self.fields["labels"].setText(", ".join(f.labels) or "—")
        units = self.units or units_of(self.oracle)
        self.fields["V"].setText(units.value_text(f.value, f.value_exact))
        self.fields["D"].setText(
            fmt_value(f.danger, f.danger_exact) if self.oracle.has_danger else "— (no unsafe label)"
        )
        self.fields["best"].setText(", ".join(f.best) or "—")
        self.fields["worst"].setText(", ".join(f.worst) or "—")
        self.fields["do_nothing"].setText(do_nothing_text(f))
        self.fields["optimal"].setText(f.optimal_action or "—")
        self.fields["flags"].setText(self.kind(f, units.dead_end_text))
        self.fields["centrality"].setText(f"{f.centrality:.4g}")
        self.bars.set_state(f)
        self.successors.clear()
        idle = set(f.do_nothing)
        for action, successors in f.successors.items():
            shown = f"{action} (do-nothing)" if action in idle else action or "(unlabelled)"
            parent = QTreeWidgetItem([shown, ""])
            for target, probability in sorted(successors.items(), key=lambda kv: -kv[1]):
                child = QTreeWidgetItem([f"→ state {target}", f"{probability:.4g}"])
                child.setData(0, Qt.ItemDataRole.UserRole, target)
                parent.addChild(child)
            self.successors.addTopLevelItem(parent)
            parent.setExpanded(True)
        self.successors.resizeColumnToContents(0)

    @staticmethod
    def kind(f: StateFacts, dead_end: str = "dead end (V = 0)") -> str:
        names = {"dead_end": dead_end}
        return ", ".join(names.get(role, role) for role in f.roles) or "ordinary"

    def _go(self, item: QTreeWidgetItem, column: int) -> None:
        target = item.data(0, Qt.ItemDataRole.UserRole)
        if target is not None:
            self.state_requested.emit(int(target))

"""The Workbench's sweep page: V against one constant, and where the best action flips.

Choose an undefined constant, a range and a step; each point is an oracle run (isolated,
cached), and a failing point is shown as failed. The plot shows V of the initial state (and of
the followed states) with a dashed line at each tipping point, the table every point, and the
tipping points below say how exactly they were located. What is shown comes made from
``core.workspace.presentation.workbench.SweepWorkspace`` (``SweepShown``); the page lays it out.
"""

from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.workspace.presentation.workbench import (
    Sweep,
    SweepShown,
    SweepWorkspace,
    followed_states,
)
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.flow_layout import FlowLayout
from explaincheck.gui.views.tables import fill_row, read_only_table

DOUBLE_RANGE = ("0.1", "0.9", "0.05")  # a probability's range, offered for a double
INTEGER_RANGE = ("1", "10", "1")  # whole numbers, offered for an int (a size, a count)


def _titled(title: str, field: QWidget, parent: QWidget) -> QWidget:
    """A field with its title before it, kept on one line when the bar wraps."""
    pair = QWidget(parent)
    row = QHBoxLayout(pair)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(plain_label(title))
    row.addWidget(field, 1)
    return pair


class SweepPage(QWidget):
    sweep_requested = Signal(str, tuple)  # "NAME=LO:HI:STEP", states to follow

    def __init__(self, workspace: SweepWorkspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.constant = QComboBox(self)
        self.low = QLineEdit("0.1", self)
        self.high = QLineEdit("0.9", self)
        self.step = QLineEdit("0.05", self)
        self.states = QLineEdit("", self)
        self.states.setPlaceholderText("states, e.g. 0 13")
        self.states.setToolTip(
            "states whose V and A* to follow (default: the initial and the selected state)"
        )
        self.run_button = QPushButton("Sweep")
        self.status = plain_label("Choose an undefined constant of the model.")
        self.status.setWordWrap(True)
        self.canvas: FigureCanvasQTAgg | None = None
        self.table = read_only_table(["value", "V(initial)", "A*"], self)
        self.tipping = plain_label("")
        self.tipping.setWordWrap(True)
        bar = FlowLayout(spacing=6)  # wraps in a narrow window (a 1280-px screen)
        bar.add(_titled("Constant:", self.constant, self))
        for name, field in (("from", self.low), ("to", self.high), ("step", self.step)):
            field.setMaximumWidth(80)
            bar.add(_titled(name, field, self))
        self.states.setMinimumWidth(
            self.states.fontMetrics().horizontalAdvance("states, e.g. 0 13") + 12
        )
        bar.add(_titled("follow", self.states, self), stretch=True)
        bar.add(self.run_button)
        self.plot_holder = QWidget(self)
        self.plot_layout = QVBoxLayout(self.plot_holder)
        self.plot_layout.setContentsMargins(0, 0, 0, 0)
        right = QWidget(self)
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.table, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.plot_holder)
        split.addWidget(right)
        split.setSizes([480, 300])
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        layout.addWidget(self.tipping)
        self.run_button.clicked.connect(self.request_sweep)
        self.types: dict[str, str] = {}
        self.constant.currentTextChanged.connect(lambda _name: self._offer_range())
        workspace.ready.connect(self._show)

    @property
    def sweep(self) -> Sweep | None:
        return self.workspace.sweep

    @property
    def selected(self) -> int | None:
        return self.workspace.selected

    def _offer_range(self) -> None:
        integer = self.types.get(self.constant.currentText()) == "int"
        for field, text in zip(
            (self.low, self.high, self.step),
            INTEGER_RANGE if integer else DOUBLE_RANGE,
            strict=True,
        ):
            field.setText(text)

    def set_constants(
        self, names: list[str], selected: int | None = None, types: dict[str, str] | None = None
    ) -> None:
        """The model's undefined constants (the only ones a sweep may set); ``types`` (PRISM's
        ``int``/``double``) picks the range first offered: whole numbers for an integer."""
        self.types = dict(types or {})
        self.constant.clear()
        self.constant.addItems(names)
        self._offer_range()
        self.run_button.setEnabled(bool(names))
        self.status.setText(
            "Choose a range and press Sweep."
            if names
            else "This model has no undefined constant to sweep (declare one without a value)."
        )

    def select_state(self, state: int) -> None:
        self.workspace.selected = state

    def followed(self) -> tuple[int, ...]:
        return followed_states(self.states.text())

    def request_sweep(self) -> None:
        name = self.constant.currentText()
        if not name:
            return
        low, high, step = (f.text().strip() for f in (self.low, self.high, self.step))
        spec = f"{name}={low}:{high}:{step}"
        self.status.setText(f"Sweeping {spec}…")
        self.sweep_requested.emit(spec, self.followed())

    def show_progress(self, done: int, total: int) -> None:
        self.status.setText(f"Point {done} of {total}…")

    def show_error(self, text: str) -> None:
        self.status.setText(f"Sweep failed: {text}")

    def show_sweep(self, sweep: Sweep) -> None:
        self.workspace.show(sweep)

    def _show(self, shown: SweepShown) -> None:
        self.status.setText(shown.status)
        if self.canvas is not None:
            self.plot_layout.removeWidget(self.canvas)
            self.canvas.deleteLater()
        self.canvas = FigureCanvasQTAgg(shown.figure)
        self.plot_layout.addWidget(self.canvas)
        self.table.setColumnCount(len(shown.headers))
        self.table.setHorizontalHeaderLabels(shown.headers)
        self.table.setRowCount(len(shown.rows))
        for row, cells in enumerate(shown.rows):
            fill_row(self.table, row, cells)
        self.tipping.setText(shown.tipping)

"""The Workbench's sweep page: V against one constant, and where the best action flips.

Choose an undefined constant, a range and a step (offered: the constant's whole range where the
model says it, ``core.workbench.sweep_range``: 0 to 1 for a probability); each point is an
oracle run (isolated, cached), and a failing point is shown as failed. The plot shows V of the
initial state and of the followed states (by default those whose best action flips) with a
dashed line at each tipping point, the table every point, and the tipping points below say how
exactly they were located. What is shown comes made from
``core.workspace.presentation.workbench.SweepWorkspace`` (``SweepShown``); the page lays it out.
"""

from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.workspace.presentation.workbench import (
    OfferedRange,
    Sweep,
    SweepShown,
    SweepWorkspace,
    followed_states,
    offered_range,
)
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.support.text_size import notifier, text_scale
from explaincheck.gui.views.flow_layout import FlowLayout
from explaincheck.gui.views.tables import fill_row, read_only_table


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
        self.low = QLineEdit("0", self)
        self.high = QLineEdit("1", self)
        self.step = QLineEdit("0.05", self)
        self.states = QLineEdit("", self)
        self.states.setPlaceholderText("where A* flips")
        self.states.setToolTip(
            "states whose V and A* to follow, e.g. 0 13 (default: every state whose best"
            " action flips in the range)"
        )
        self.run_button = QPushButton("Sweep")
        self.status = plain_label("Choose an undefined constant of the model.")
        self.status.setWordWrap(True)
        self.canvas: FigureCanvasQTAgg | None = None
        self.table = read_only_table(["value", "V(initial)", "A*"], self)
        # a box that scrolls: twenty tipping points (a lake's states, each flipping at both
        # bounds) pushed the window past the bottom of a laptop's screen as a label
        self.tipping = QPlainTextEdit(self)
        self.tipping.setReadOnly(True)
        self.tipping.setPlaceholderText("The tipping points, once swept")
        bar = FlowLayout(spacing=6)  # wraps in a narrow window (a 1280-px screen)
        bar.add(_titled("Constant:", self.constant, self))
        for name, field in (("from", self.low), ("to", self.high), ("step", self.step)):
            field.setMaximumWidth(80)
            bar.add(_titled(name, field, self))
        self.states.setMinimumWidth(
            self.states.fontMetrics().horizontalAdvance("where A* flips") + 12
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
        below = QSplitter(Qt.Orientation.Vertical, self)
        below.addWidget(split)
        below.addWidget(self.tipping)
        below.setStretchFactor(0, 3)
        below.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.status)
        layout.addWidget(below, 1)
        self.run_button.clicked.connect(self.request_sweep)
        self.offered: dict[str, OfferedRange] = {}
        self.constant.currentTextChanged.connect(lambda _name: self._offer_range())
        workspace.ready.connect(self._show)
        workspace.text_scale = text_scale()
        notifier().changed.connect(self._text_size_changed)  # the plot's text follows it

    @property
    def sweep(self) -> Sweep | None:
        return self.workspace.sweep

    def _text_size_changed(self, scale: float) -> None:
        self.workspace.set_text_scale(scale)

    def _offer_range(self) -> None:
        name = self.constant.currentText()
        offered = self.offered.get(name) or offered_range(None, name)
        for field, text in zip(
            (self.low, self.high, self.step), (offered.low, offered.high, offered.step), strict=True
        ):
            field.setText(text)
        self.constant.setToolTip(offered.why)
        if name:
            self.status.setText(f"{offered.why}. Press Sweep.")

    def set_constants(
        self, names: list[str], offered: dict[str, OfferedRange] | None = None
    ) -> None:
        """The model's undefined constants (the only ones a sweep may set) and the range first
        offered for each (``core.workbench.sweep_range.offered_range``: a probability's whole
        range, whole numbers for an integer)."""
        self.offered = dict(offered or {})
        self.constant.blockSignals(True)
        self.constant.clear()
        self.constant.addItems(names)
        self.constant.blockSignals(False)
        self.run_button.setEnabled(bool(names))
        if names:
            self._offer_range()
        else:
            self.status.setText(
                "This model has no undefined constant to sweep (declare one without a value)."
            )

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
        self.tipping.setPlainText(shown.tipping)

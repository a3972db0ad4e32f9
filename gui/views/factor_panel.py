"""The factor panel of a ``factors`` case (Results and Teach): what the answer says, what the
LLM does and what is true, per factor; and, for the selected factor, the intervened model.

The table lists every factor with four marks: cited (its position in the answer), necessary and
sufficient (the exact truth the case was graded with) and behaviour (whether the LLM's own
decision changed when the behavioural check asked it again on the intervened model; "not asked"
when no ``--behavioural`` run recorded it), then the graded necessity / sufficiency ("N / S").
Selecting a factor shows the Q bars of the case's
state under the intervention next to the original ones, and emits the states where the best
action changes (``highlight``), which the owner shows on its graph. The panel computes nothing:
its ``FactorWorkspace`` (Qt-free, ``core/workspace/presentation/teach/factors.py``) reads the
marks and intervenes, through the window's shared ``FactorController`` (isolated child,
cached); the GUI thread never waits for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.teach.factors import (
    COLUMNS,
    MODEL,
    NOT_ASKED,
    Factor,
    FactorPicture,
    FactorWorkspace,
    Intervention,
    after_title,
    has_factor_panel,
    is_factor_case,
    mark_texts,
)
from explaincheck.gui.adapters.factor_controller import FactorController
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.q_bars import QBars

__all__ = ["NOT_ASKED", "FactorPanel", "has_factor_panel", "is_factor_case", "mark_texts"]

YES, NO = QColor("#cdebd9"), QColor("#f3f3f3")


class FactorPanel(QWidget):
    """Marks per factor and the selected factor's intervention."""

    highlight = Signal(object)  # list of state ids where A* changes ([]: clear)
    intervention_shown = Signal(object)  # the Intervention (tests and the status line)
    factor_chosen = Signal(str)  # the factor the user selected (the comparison's other side)

    def __init__(
        self,
        tasks: Tasks | None = None,
        controller: FactorController | None = None,
        parent: QWidget | None = None,
        compact: bool = False,
    ) -> None:
        """``compact``: marks and the status line only, no Q bars (the second side of the
        comparison, where the bars would repeat the first side's: one state, one model)."""
        super().__init__(parent)
        self.tasks = tasks or Tasks(self)
        self.controller = controller or FactorController(self)
        self.workspace = FactorWorkspace(self.controller.source)
        self.workspace.picture_ready.connect(self._show_picture)
        self.workspace.intervention_ready.connect(self._show_intervention)
        self.workspace.said.connect(lambda text: self.status.setText(text))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = plain_label("")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        tips = (
            "The factor (hover for its words)",
            "Where the answer cited it (1st = most influential)",
            "Neutralising it changes the best actions A*(s) (exact)",
            "Keeping it and neutralising the other model factors keeps A*(s) (exact)",
            "Whether the LLM's own decision changed when asked again on the intervened model "
            "(run with the behavioural check; 'not asked' otherwise)",
            "How much the margin of the factual best actions moves under the intervention",
        )
        for column, tip in enumerate(tips):
            heading = self.table.horizontalHeaderItem(column)
            if heading is not None:
                heading.setToolTip(tip)
        self.table.itemSelectionChanged.connect(self._factor_selected)
        self.table.setMinimumHeight(150)  # five factors or so without scrolling
        layout.addWidget(self.table, 1)

        bars = QHBoxLayout()
        self.before = QBars(self)
        self.after = QBars(self)
        self.before_box = self._boxed("Original", self.before)
        self.after_box = self._boxed("Select a factor", self.after)
        for box in (self.before_box, self.after_box):  # equal halves, side by side
            box.setMinimumWidth(180)
            bars.addWidget(box, 1)
        layout.addLayout(bars)
        for box in (self.before_box, self.after_box):
            box.setVisible(not compact)
        self.status = plain_label("")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)

    @staticmethod
    def _boxed(title: str, widget: QWidget) -> QGroupBox:
        box = QGroupBox(title)
        inner = QVBoxLayout(box)
        inner.setContentsMargins(4, 4, 4, 4)
        inner.addWidget(widget)
        return box

    # -- the workspace's state, by the names the tests use ------------------------------------
    @property
    def picture(self) -> FactorPicture | None:
        return self.workspace.picture

    @property
    def oracle(self) -> OracleResult | None:
        return self.workspace.oracle

    @property
    def factors(self) -> tuple[Factor, ...]:
        return self.workspace.factors

    @property
    def shown(self) -> Intervention | None:
        return self.workspace.shown

    # -- the case --------------------------------------------------------------------------
    def show_case(
        self,
        row: Mapping[str, Any] | None,
        oracle: OracleResult | None,
        environment: Environment | None,
        db_path: str | None = None,
    ) -> bool:
        """Show a ``factors`` case (hidden otherwise); True when shown. ``oracle`` is the open
        model's (None when the case belongs to another model: marks only, no Q bars)."""
        if not self.workspace.begin(row, oracle):
            self.hide()
            return False
        assert row is not None
        self.show()
        self.table.setRowCount(0)
        self.before.set_state(None)
        self.after.set_state(None)
        self.after_box.setTitle("Select a factor")
        self.status.setText("Reading the factors…")
        self.tasks.start(self.workspace.load(row, environment, db_path), "factor panel")
        return True

    def set_picture(self, picture: FactorPicture) -> None:
        self.workspace.set_picture(picture)

    def _show_picture(self, picture: FactorPicture) -> None:
        state = picture.state
        asked = "recorded" if picture.asked else "not asked (run with the behavioural check)"
        self.title.setText(f"Factors at state {state} · behavioural check: {asked}")
        self.table.setRowCount(len(picture.marks))
        for r, mark in enumerate(picture.marks):
            for column, text in enumerate(mark_texts(mark, picture.asked)):
                item = QTableWidgetItem(text)
                if column in (2, 3):
                    item.setBackground(YES if text == "yes" else NO)
                if column == 0:
                    kind = "model factor" if mark.kind == MODEL else "state factor"
                    item.setToolTip(f"{mark.words} ({kind})" if mark.kind else mark.words)
                self.table.setItem(r, column, item)
        oracle = self.workspace.oracle
        if oracle is not None and self.workspace.has_state():
            self.before.set_state(oracle.state(state))
            self.before_box.setTitle(f"Original · state {state}")
        self.status.setText(self.workspace.picture_note())

    # -- the selected factor ---------------------------------------------------------------
    def select_factor(self, factor_id: str) -> None:
        if self.picture is None:
            return
        for r, mark in enumerate(self.picture.marks):
            if mark.id == factor_id:
                self.table.selectRow(r)
                return
        raise KeyError(factor_id)

    def follow(self, factor_id: str) -> None:
        """Select ``factor_id`` because the panel beside this one did (the side-by-side view
        shows one intervention on both answers); nothing when this case lacks that factor."""
        if self.picture is None:
            return
        selected = {index.row() for index in self.table.selectionModel().selectedRows()}
        for r, mark in enumerate(self.picture.marks):
            if mark.id == factor_id and r not in selected:
                self.table.selectRow(r)

    def _factor_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.picture is None:
            return
        mark = self.picture.marks[rows[0].row()]
        self.factor_chosen.emit(mark.id)
        factor = self.workspace.factor(mark.id)
        if factor is not None and self.oracle is not None:
            self.after.set_state(None)
            self.after_box.setTitle(after_title(factor))
        work = self.workspace.intervene(mark.id)
        if work is not None:
            self.tasks.start(work, "factor intervention")

    def _show_intervention(self, shown: Intervention) -> None:
        self.after.set_state(shown.after)
        self.after_box.setToolTip(shown.note)
        self.highlight.emit(list(shown.changed))
        self.intervention_shown.emit(shown)

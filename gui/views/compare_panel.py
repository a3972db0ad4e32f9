"""The Results tab's "Side by side" page: two LLMs on the same test cases, disagreements
first, with the paired statistics per category (McNemar, Holm, a bootstrap CI of A − B)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.paired_summary import paired_summary
from explaincheck.gui.adapters.results_data import ResultsData, same_model
from explaincheck.gui.adapters.results_model import PairsModel, disagree, paired_rows
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views.case_detail import DETAIL_MIN_HEIGHT, CaseDetail


def _interval(low: float, high: float) -> str:
    """A bootstrap CI; a degenerate sample (every pair alike) has none."""
    if low != low or high != high:  # NaN
        return "[no CI]"
    return f"[{low:+.0%}, {high:+.0%}]"


STATS_HEADERS = (
    "Category",
    "Pairs",
    "Score A",
    "Score B",
    "A − B [95% CI]",
    "McNemar p",
    "Holm p",
    "Survives?",
)


class ComparePanel(QWidget):
    """Two LLMs on the same test cases, disagreements first."""

    case_selected = Signal(object)

    def __init__(
        self, results: ResultsData, parent: QWidget | None = None, tasks: Tasks | None = None
    ) -> None:
        super().__init__(parent)
        self.results = results
        self.tasks = tasks
        self.oracle: OracleResult | None = None
        self.environment: Environment | None = None
        self.statistics: list[dict[str, Any]] = []
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(QLabel("LLM A:"))
        self.llm_a = QComboBox(self)
        bar.addWidget(self.llm_a)
        bar.addWidget(QLabel("LLM B:"))
        self.llm_b = QComboBox(self)
        bar.addWidget(self.llm_b)
        self.summary = QLabel("", self)
        bar.addWidget(self.summary, 1)
        for box in (self.llm_a, self.llm_b):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            box.currentIndexChanged.connect(lambda _: self.refresh())
        self.model = PairsModel()
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.selectionModel().selectionChanged.connect(self._selected)
        self.stats_table = QTableWidget(0, len(STATS_HEADERS), self)
        self.stats_table.setHorizontalHeaderLabels(STATS_HEADERS)
        self.stats_table.verticalHeader().setVisible(False)
        self.stats_table.horizontalHeader().setStretchLastSection(True)
        self.stats_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.stats_table.setToolTip(
            "Per category: McNemar's exact test on the paired outcomes; Holm's correction across "
            "the categories decides which differences survive. The overall row is one test."
        )
        self.stats_note = QLabel("", self)
        self.stats_note.setWordWrap(True)
        self.detail_a = CaseDetail(self)
        self.detail_b = CaseDetail(self, compact=True)
        for detail in (self.detail_a, self.detail_b):  # their boxes scroll: fits a laptop
            detail.setMinimumHeight(DETAIL_MIN_HEIGHT)
        details = QSplitter(Qt.Orientation.Horizontal)
        details.addWidget(self.detail_a)
        details.addWidget(self.detail_b)
        stats = QWidget(self)
        stats_layout = QVBoxLayout(stats)
        stats_layout.setContentsMargins(0, 0, 0, 0)
        stats_layout.addWidget(self.stats_note)
        stats_layout.addWidget(self.stats_table, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(stats)
        split.addWidget(self.table)
        split.addWidget(details)
        split.setSizes([260, 340, 260])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(split, 1)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(300)
        self._refresh_timer.timeout.connect(self._refill_llms)
        results.reset.connect(self._refill_llms)
        results.rows_added.connect(lambda *_: self._refresh_timer.start())

    def _refill_llms(self) -> None:
        llms = self.results.llms()
        for box in (self.llm_a, self.llm_b):
            current = box.currentText()
            other = self.llm_a.currentText() if box is self.llm_b else ""
            box.blockSignals(True)
            box.clear()
            box.addItems(llms)
            if current in llms and current != other:
                box.setCurrentText(current)
            else:  # B never starts as A: the first LLM that is not A, else none yet
                free = [llm for llm in llms if llm != other]
                box.setCurrentIndex(llms.index(free[0]) if free else -1)
            box.blockSignals(False)
        self.refresh()

    def refresh(self) -> None:
        a, b = self.llm_a.currentText(), self.llm_b.currentText()
        if not a or not b or a == b:
            self.model.set_pairs([])
            self.summary.setText("Choose two different LLMs.")
            return
        pairs = paired_rows(self.results.rows, a, b)
        differing = sum(1 for x, y in pairs if disagree(x, y))
        self.model.set_pairs(pairs)
        self.summary.setText(f"{len(pairs)} shared cases · {differing} where they disagree (first)")
        rows = list(self.results.rows)
        if self.tasks is None:
            self.show_statistics(a, b, paired_summary(rows, a, b))
        else:
            self.stats_note.setText("Computing McNemar and Holm…")
            self.tasks.start(self._statistics(rows, a, b), "paired statistics")

    async def _statistics(self, rows: list[dict[str, Any]], a: str, b: str) -> None:
        found = await in_thread(paired_summary, rows, a, b)
        if (self.llm_a.currentText(), self.llm_b.currentText()) == (a, b):
            self.show_statistics(a, b, found)

    def show_statistics(self, a: str, b: str, found: list[dict[str, Any]]) -> None:
        """The paired statistics table: which differences survive Holm's correction."""
        self.statistics = found
        self.stats_table.setRowCount(len(found))
        for r, cell in enumerate(found):
            holm = cell["p_holm"]
            values = (
                cell["category"],
                str(cell["pairs"]),
                f"{cell['score_a']:.0%}",
                f"{cell['score_b']:.0%}",
                f"{cell['difference']:+.0%} {_interval(cell['diff_low'], cell['diff_high'])}",
                f"{cell['p_mcnemar']:.3g}",
                "—" if holm is None else f"{holm:.3g}",
                cell["mark"],
            )
            for c, value in enumerate(values):
                item = QTableWidgetItem(value)
                if c == len(values) - 1 and cell["survives"]:
                    item.setBackground(QColor(180, 230, 180))
                self.stats_table.setItem(r, c, item)
        self.stats_table.resizeColumnsToContents()
        surviving = [c["category"] for c in found if c["survives"] and c["p_holm"] is not None]
        self.stats_note.setText(
            f"A = {a}, B = {b}: "
            + (
                f"differences that survive Holm: {', '.join(surviving)}"
                if surviving
                else "no per-category difference survives Holm's correction"
            )
            if found
            else "No paired outcomes (the two LLMs share no answered case)."
        )

    def _selected(self, *_args: object) -> None:
        indexes = self.table.selectionModel().selectedRows()
        if not indexes:
            return
        a, b = self.model.pairs[indexes[0].row()]
        oracle = self.oracle if same_model(a, self.oracle) else None
        names = self.environment.variables if self.environment is not None else {}
        self.detail_a.show_row(a, oracle, names)
        self.detail_b.show_row(b, oracle, names)
        self.case_selected.emit(a)

"""Results › Compare campaigns…: the open results file against a second one, with the gate.

The table is ``explaincheck compare``'s (core/analysis/compare.py); under it every discordant
case — one side passed, the other did not — is a click away, with both replies side by side
and the oracle's answer. Why a dialog and not a tab: it reads a second file, which the window
does not otherwise hold.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.errors import ExplaincheckError
from explaincheck.gui.adapters.compare_campaigns import case_rows, read_side
from explaincheck.gui.views.case_detail import CaseDetail
from explaincheck.gui.views.compare_cases_row import CasesRow

COLUMNS = (
    ("category", "Category"),
    ("pairs", "Pairs"),
    ("both_pass", "Both pass"),
    ("base_only", "Base only"),
    ("new_only", "New only"),
    ("both_fail", "Both fail"),
    ("base_pass", "Base"),
    ("new_pass", "New"),
    ("difference", "New − base [interval, Holm]"),
    ("p_holm", "Holm p"),
    ("mde", "Detectable drop"),
    ("regression", "Regression?"),
)
CASE_COLUMNS = ("Category", "State(s)", "Base", "New", "Environment")
REGRESSION_COLOUR = QColor(240, 150, 150, 170)


class CompareCampaignsDialog(QDialog):
    """Base and new results files, their LLMs, the gate's table and the discordant cases."""

    def __init__(self, new_path: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare campaigns")
        self.frames: dict[str, pd.DataFrame] = {}
        self.comparison: Any = None
        self.rows: dict[str, dict[tuple[str, str, str], dict[str, Any]]] = {}
        self.cases: list[tuple[str, str, str]] = []
        layout = QVBoxLayout(self)
        layout.addLayout(self._files_row())
        layout.addLayout(self._options_row())
        self.case_part = CasesRow(self)  # all cases, or one part of a split (compare --cases)
        self.case_part.changed.connect(self.run_comparison)
        layout.addWidget(self.case_part)
        self.verdict = QLabel("Choose a base results file to compare with.", self)
        self.verdict.setWordWrap(True)
        layout.addWidget(self.verdict)
        layout.addWidget(self._build_split(), 1)
        if new_path:
            self.set_file("new", new_path)

    # -- building -------------------------------------------------------------------------
    def _files_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.paths: dict[str, QLineEdit] = {}
        for side, title in (("base", "Base:"), ("new", "New:")):
            row.addWidget(QLabel(title, self))
            edit = QLineEdit(self)
            edit.setReadOnly(True)
            edit.setPlaceholderText("a results file (.sqlite)")
            self.paths[side] = edit
            row.addWidget(edit, 1)
            button = QPushButton("Open…", self)
            button.clicked.connect(lambda _=False, s=side: self._choose(s))
            row.addWidget(button)
        return row

    def _options_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.llms: dict[str, QComboBox] = {}
        for side, title in (("base", "Base LLM:"), ("new", "New LLM:")):
            row.addWidget(QLabel(title, self))
            box = QComboBox(self)
            box.setMinimumContentsLength(14)
            self.llms[side] = box
            row.addWidget(box)
        row.addWidget(QLabel("Tolerated drop:", self))
        self.max_drop = QDoubleSpinBox(self)
        self.max_drop.setRange(0.0, 0.5)
        self.max_drop.setSingleStep(0.01)
        self.max_drop.setDecimals(2)
        self.max_drop.setToolTip("compare --max-drop: a drop up to this share is not a regression")
        row.addWidget(self.max_drop)
        self.exclude_flaky = QCheckBox("Leave out flaky cases", self)
        self.exclude_flaky.setToolTip("compare --exclude-flaky: cases whose repeats disagree")
        row.addWidget(self.exclude_flaky)
        row.addStretch(1)
        self.compare_button = QPushButton("Compare", self)
        self.compare_button.clicked.connect(self.run_comparison)
        row.addWidget(self.compare_button)
        return row

    def _build_split(self) -> QSplitter:
        self.table = _table(self, [title for _, title in COLUMNS])
        self.table.itemSelectionChanged.connect(self._category_chosen)
        self.case_table = _table(self, list(CASE_COLUMNS))
        self.case_table.itemSelectionChanged.connect(self._case_chosen)
        self.case_title = QLabel("Discordant cases (one side scored higher):", self)
        cases = QWidget(self)
        cases_layout = QVBoxLayout(cases)
        cases_layout.setContentsMargins(0, 0, 0, 0)
        cases_layout.addWidget(self.case_title)
        cases_layout.addWidget(self.case_table)
        self.detail_base, self.detail_new = CaseDetail(self, compact=True), CaseDetail(self, True)
        details = QSplitter(Qt.Orientation.Horizontal, self)
        for title, detail in (("Base", self.detail_base), ("New", self.detail_new)):
            box = QWidget(self)
            box_layout = QVBoxLayout(box)
            box_layout.setContentsMargins(0, 0, 0, 0)
            box_layout.addWidget(QLabel(f"<b>{title}</b>", self))
            box_layout.addWidget(detail)
            details.addWidget(box)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(cases)
        split.addWidget(details)
        split.setChildrenCollapsible(False)
        split.setSizes([200, 110, 420])
        return split

    # -- files and the comparison -----------------------------------------------------------
    def _choose(self, side: str) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, f"Open the {side} results", "", "Results (*.sqlite *.db);;All files (*)"
        )
        if path:
            self.set_file(side, path)

    def set_file(self, side: str, path: str) -> bool:
        """Read one side's file and offer its LLMs; False (the reason shown) when it cannot."""
        try:
            frame = read_side(path)
        except ExplaincheckError as error:
            self._say(str(error), bad=True)
            return False
        if frame.empty:
            self._say(f"{path} holds no results yet", bad=True)
            return False
        self.frames[side] = frame
        self.paths[side].setText(path)
        box = self.llms[side]
        box.clear()
        for llm in sorted(str(v) for v in frame["llm"].unique()):
            box.addItem(llm, llm)
        other = self.llms["base" if side == "new" else "new"].currentData()
        if other is not None and box.findData(other) >= 0:
            box.setCurrentIndex(box.findData(other))
        if len(self.frames) == 2:
            self.run_comparison()
        return True

    def run_comparison(self) -> bool:
        """Compare the two sides with the chosen options; False (the reason shown) if not."""
        from explaincheck.core.analysis.compare import compare_campaigns

        if len(self.frames) < 2:
            self._say("Choose both results files first.", bad=True)
            return False
        base_llm, new_llm = self.llms["base"].currentData(), self.llms["new"].currentData()
        try:
            base, new = self.case_part.cut(self.frames["base"], self.frames["new"])
            self.comparison = compare_campaigns(
                base,
                new,
                base_llm,
                new_llm,
                max_drop=self.max_drop.value(),
                exclude_flaky=self.exclude_flaky.isChecked(),
                names=(self.paths["base"].text(), self.paths["new"].text()),
            )
        except ExplaincheckError as error:
            self._say(str(error), bad=True)
            return False
        self.rows = {
            "base": case_rows(self.frames["base"], base_llm),
            "new": case_rows(self.frames["new"], new_llm),
        }
        judged = self.case_part.judged_text(self.comparison, base)  # a split's part: first
        text = f"{judged} {self._verdict_text()}" if judged else self._verdict_text()
        self._say(text, bad=self.comparison.regression)
        self._fill_table()
        self._fill_cases(None)
        return True

    def _verdict_text(self) -> str:
        comparison = self.comparison
        overall = comparison.lines[-1]
        if comparison.regression:
            failed = ", ".join(
                "overall" if x.category == "all" else x.category for x in comparison.failed
            )
            head = f"REGRESSION in {failed}"
        elif overall.mde is None:
            head = f"No regression found — but {overall.pairs} pairs are too few to see one"
        else:
            head = f"No regression: a drop of {overall.mde:.1%} or more would be seen (power 0.8)"
        flaky = (
            f", {comparison.excluded_flaky} flaky cases"
            if comparison.excluded_flaky is not None
            else ""
        )
        return (
            f"{head}. {comparison.pairs} cases paired ({comparison.base_llm} → "
            f"{comparison.new_llm}); left out: {comparison.only_base} only in the base, "
            f"{comparison.only_new} only in the new{flaky}."
        )

    def _say(self, text: str, *, bad: bool) -> None:
        self.verdict.setText(text)
        self.verdict.setStyleSheet("font-weight: bold; color: #b00020;" if bad else "")

    def _fill_table(self) -> None:
        lines = self.comparison.lines
        self.table.setRowCount(len(lines))
        for row, line in enumerate(lines):
            for column, (key, _) in enumerate(COLUMNS):
                item = QTableWidgetItem(_cell(line, key))
                if line.regression:
                    item.setBackground(REGRESSION_COLOUR)
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()

    def _category_chosen(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.comparison is None:
            return
        line = self.comparison.lines[rows[0].row()]
        self._fill_cases(None if line.category == "all" else line.category)

    def _fill_cases(self, category: str | None) -> None:
        found = self.comparison.discordant()
        if category is not None:
            found = found[found["category"] == category]
        self.case_title.setText(
            f"{len(found)} discordant cases{'' if category is None else ' in ' + category}"
            " — the base-only ones (the regressions) first; click one to see both replies:"
        )
        self.cases = list(zip(found["environment"], found["category"], found["case"], strict=True))
        self.case_table.setRowCount(len(found))
        for row, record in enumerate(found.to_dict("records")):
            key = (record["environment"], record["category"], record["case"])
            states = (self.rows["base"].get(key) or {}).get("states") or []
            values = (
                record["category"],
                ", ".join(map(str, states)),
                f"{record['base']:.0%}",
                f"{record['new']:.0%}",
                record["environment"],
            )
            for column, value in enumerate(values):
                self.case_table.setItem(row, column, QTableWidgetItem(str(value)))
        self.case_table.resizeColumnsToContents()
        if len(found):
            self.case_table.selectRow(0)
        else:
            self.detail_base.show_row(None)
            self.detail_new.show_row(None)

    def _case_chosen(self) -> None:
        rows = self.case_table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.cases):
            return
        key = self.cases[rows[0].row()]
        self.detail_base.show_row(self.rows["base"].get(key))
        self.detail_new.show_row(self.rows["new"].get(key))


def add_results_menu(window: Any) -> QMenu:
    """The window's Results menu with Compare campaigns… (the open file is the new side)."""
    menu = window.menuBar().addMenu("&Results")
    action = QAction("Compare campaigns…", window)
    action.setStatusTip("Compare the open results with a base results file, case by case")

    def open_dialog() -> None:
        dialog = CompareCampaignsDialog(window.results.db_path, window)
        dialog.resize(min(1300, window.width()), min(740, window.height()))
        window.compare_campaigns_dialog = dialog  # kept: the dialog is not modal
        dialog.show()

    action.triggered.connect(open_dialog)
    menu.addAction(action)
    return menu


def _table(parent: QWidget, headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(22)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _cell(line: Any, key: str) -> str:
    value = getattr(line, key)
    if key in ("base_pass", "new_pass"):
        return f"{value:.0%}"
    if key == "difference":
        low, high = line.ci
        if low != low:  # none: too few pairs for the test to reach the line's level
            return f"{value:+.0%} [–]"
        return f"{value:+.0%} [{low:+.0%}, {high:+.0%}]"
    if key == "p_holm":
        return f"{value:.3g}"
    if key == "mde":
        return "none (too few)" if value is None else f"{value:.1%}"
    if key == "regression":
        return "YES" if value else "no"
    if key == "category" and value == "all":
        return "all (overall)"
    return str(value)

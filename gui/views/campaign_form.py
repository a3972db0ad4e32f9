"""The Campaign tab's "Selection and grading" form: budget, repeat and seed, selection,
wording, the satisfy rule, the results file, the prices and the campaign file buttons.

The buttons only ask for a path (``open_file_chosen``, ``save_file_chosen``): reading and
writing a campaign file needs the whole page's set-up, which the page has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from explaincheck.core.workspace.presentation.category_offers import behavioural_tip
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.cost_fields import CostFields
from explaincheck.gui.views.flow_layout import FlowLayout

WORDING_CHOICES = (("0", "0 (the original question)"), ("1", "1"), ("2", "2"), ("all", "all three"))
SELECTIONS = (("prioritized", "prioritised (by δ)"), ("random", "random"), ("both", "both"))


def default_database() -> str:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return str(Path(base or Path.home()) / "results.sqlite")


class SelectionForm(QGroupBox):
    """The rows of the form; ``choices``/``apply`` carry their values as plain data."""

    open_file_chosen = Signal(str)  # a campaign file to set the tab from
    save_file_chosen = Signal(str)  # where to save the set-up as a campaign file

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Selection and grading", parent)
        form = QFormLayout(self)
        self._build_budget_rows(form)
        self._build_wording_row(form)
        self._build_rule_row(form)
        self._build_database_row(form)
        self.cost_fields = CostFields(form, self)  # Prices and Stop at cost
        self._build_campaign_file_row(form)

    def _build_budget_rows(self, form: QFormLayout) -> None:
        self.budget = QSpinBox(self)
        self.budget.setRange(1, 10_000)
        self.budget.setValue(20)
        self.budget.setToolTip("Test cases per category and selection")
        self.selection = QComboBox(self)
        for value, text in SELECTIONS:
            self.selection.addItem(text, value)
        self.repeat = QSpinBox(self)
        self.repeat.setRange(1, 100)
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        row = QHBoxLayout()
        row.addWidget(self.repeat)
        row.addWidget(plain_label("seed"))
        row.addWidget(self.seed, 1)
        form.addRow("Budget:", self.budget)
        form.addRow("Repeat:", row)
        form.addRow("Selection:", self.selection)

    def _build_wording_row(self, form: QFormLayout) -> None:
        wording_row = QHBoxLayout()
        self.wording = QComboBox(self)
        for value, text in WORDING_CHOICES:
            self.wording.addItem(text, value)
        self.wording.setToolTip("Which phrasing of each question to ask (--wording)")
        self.metamorphic = QCheckBox("Metamorphic variants", self)
        self.metamorphic.setToolTip(
            "Also ask each case swapped, with the actions reordered and the states renamed, "
            "and score whether the answers stay consistent (--metamorphic)"
        )
        wording_row.addWidget(self.wording, 1)
        self.behavioural = QCheckBox("Behavioural check", self)
        self.behavioural.setToolTip(behavioural_tip())
        # a row of their own, wrapping onto two lines when narrow: side by side, they made the
        # column 414 px wide, too wide beside the category names at 1280 px (issue 50)
        also_row = FlowLayout(spacing=8)
        also_row.add(self.metamorphic)
        also_row.add(self.behavioural)
        form.addRow("Wording:", wording_row)
        form.addRow("", also_row)

    def _build_rule_row(self, form: QFormLayout) -> None:
        rule_row = QHBoxLayout()
        self.satisfy_rule = QComboBox(self)
        self.satisfy_rule.addItem("|p − V| ≤ tolerance", "absolute")
        self.satisfy_rule.addItem("same side of ½", "half")
        self.tolerance = QDoubleSpinBox(self)
        self.tolerance.setRange(0.0, 1.0)
        self.tolerance.setDecimals(3)
        self.tolerance.setSingleStep(0.01)
        self.tolerance.setValue(0.05)
        self.satisfy_rule.currentIndexChanged.connect(
            lambda _: self.tolerance.setEnabled(self.satisfy_rule.currentData() == "absolute")
        )
        rule_row.addWidget(self.satisfy_rule, 1)
        rule_row.addWidget(self.tolerance)
        self.keep_do_nothing = QCheckBox("Keep do-nothing actions", self)
        self.keep_do_nothing.setToolTip(
            "Offer actions whose every outcome is the state itself (always among the best) in"
            " best/worst/ranking questions; left out by default (--keep-do-nothing)"
        )
        form.addRow("Satisfy:", rule_row)
        form.addRow("Actions:", self.keep_do_nothing)

    def _build_database_row(self, form: QFormLayout) -> None:
        db_row = QHBoxLayout()
        self.database = QLineEdit(self)
        self.database.setText(default_database())
        db_row.addWidget(self.database, 1)
        browse = QPushButton("…")
        browse.setMaximumWidth(30)
        browse.clicked.connect(self._choose_database)
        db_row.addWidget(browse)
        form.addRow("Results file:", db_row)

    def _build_campaign_file_row(self, form: QFormLayout) -> None:
        """Open and save the set-up as a campaign file (``explaincheck run --config``)."""
        row = QHBoxLayout()
        opened = QPushButton("Open…")
        opened.setToolTip("Set the tab from a campaign file (TOML, as run --config reads)")
        opened.clicked.connect(self._choose_file_to_open)
        saved = QPushButton("Save…")
        saved.setToolTip("Save this set-up as a campaign file: explaincheck run --config FILE")
        saved.clicked.connect(self._choose_file_to_save)
        row.addWidget(opened)
        row.addWidget(saved)
        row.addStretch(1)
        form.addRow("Campaign file:", row)

    def _choose_database(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Results database",
            self.database.text(),
            "SQLite (*.sqlite *.db);;All files (*)",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.database.setText(path)

    def _choose_file_to_save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save campaign file", "campaign.toml", "Campaign files (*.toml)"
        )
        if path:
            self.save_file_chosen.emit(path)

    def _choose_file_to_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open campaign file", "", "Campaign files (*.toml);;All files (*)"
        )
        if path:
            self.open_file_chosen.emit(path)

    def wording_count(self) -> int:
        """Phrasings asked of each question: one, or every single one listed for "all"."""
        return self.wording.count() - 1 if self.wording.currentData() == "all" else 1

    def database_path(self) -> str:
        """The results file as typed (the default when the box is empty)."""
        return self.database.text().strip() or default_database()

    def choices(self) -> dict[str, Any]:
        return {
            "budget": self.budget.value(),
            "selection": self.selection.currentData(),
            "repeat": self.repeat.value(),
            "seed": self.seed.value(),
            "satisfy_rule": self.satisfy_rule.currentData(),
            "tolerance": self.tolerance.value(),
            "database": self.database.text(),
            "wording": self.wording.currentData(),
            "metamorphic": self.metamorphic.isChecked(),
            "behavioural": self.behavioural.isChecked(),
            "keep_do_nothing": self.keep_do_nothing.isChecked(),
            **self.cost_fields.choices(),
        }

    def apply(self, choices: dict[str, Any]) -> None:
        """Restore ``choices()``; unknown or bad entries are skipped."""
        for key, box in (("budget", self.budget), ("repeat", self.repeat), ("seed", self.seed)):
            if isinstance(choices.get(key), int):
                box.setValue(choices[key])
        for key, combo in (
            ("selection", self.selection),
            ("satisfy_rule", self.satisfy_rule),
            ("wording", self.wording),
        ):
            index = combo.findData(choices.get(key))
            if index >= 0:
                combo.setCurrentIndex(index)
        if isinstance(choices.get("tolerance"), int | float):
            self.tolerance.setValue(float(choices["tolerance"]))
        if isinstance(choices.get("database"), str) and choices["database"].strip():
            self.database.setText(choices["database"])
        for key, tick in (
            ("metamorphic", self.metamorphic),
            ("keep_do_nothing", self.keep_do_nothing),
            ("behavioural", self.behavioural),
        ):
            if isinstance(choices.get(key), bool):
                tick.setChecked(choices[key])
        self.cost_fields.apply(choices)

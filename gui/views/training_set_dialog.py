"""Results › Make a training set…: split the open results file into train and held-out, see the
questions per category and part, save the split and write a training set from its train part.

Why a dialog: it works on the open results file as a whole and writes files beside it; the
Results tab's rows stay as they are. Every step that reads the file or computes an oracle runs
on a worker thread (``in_thread``), so the window never waits for it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.errors import ExplaincheckError
from explaincheck.gui.adapters.training_set import (
    BY_CHOICES,
    FORMATS,
    SplitCounts,
    make_split,
    save_split,
    write_training_set,
)
from explaincheck.gui.support.tasks import Tasks, in_thread

COLUMNS = ("Category", "Train", "Held-out", "Left out", "Records")
FORMAT_WORDS = {
    "sft": "SFT: TRL's messages records",
    "openai-chat": "OpenAI chat fine-tuning JSONL",
    "dpo": "DPO: prompt, chosen, rejected",
}


class TrainingSetDialog(QDialog):
    """Split options, the counts per category and split, formats, and the two writes."""

    def __init__(self, db_path: str | None, tasks: Tasks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Make a training set")
        self.db_path = db_path
        self.tasks = tasks
        self.found: SplitCounts | None = None
        self.split_path: str | None = None
        self.records: dict[str, int] = {}
        layout = QVBoxLayout(self)
        source = QLabel(f"Results file: {db_path or '(none open)'}", self)
        source.setWordWrap(True)
        layout.addWidget(source)
        layout.addLayout(self._split_form())
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table, 1)
        layout.addLayout(self._write_row())
        self.status = QLabel(
            "Make a split: no held-out question shares a state or a successor state with a"
            " training question.",
            self,
        )
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.split_button.setEnabled(bool(db_path))

    def _split_form(self) -> QHBoxLayout:
        row = QHBoxLayout()
        form = QFormLayout()
        self.by = QComboBox(self)
        for by in BY_CHOICES:
            self.by.addItem({"state": "state neighbourhood"}.get(by, f"whole {by}"), by)
        self.by.setToolTip("split --by: what a held-out question may not share with training")
        form.addRow("Hold out by:", self.by)
        self.share = QDoubleSpinBox(self)
        self.share.setRange(0.05, 0.9)
        self.share.setSingleStep(0.05)
        self.share.setValue(0.3)
        form.addRow("Held-out share:", self.share)
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 1_000_000)
        form.addRow("Seed:", self.seed)
        row.addLayout(form)
        buttons = QVBoxLayout()
        self.split_button = QPushButton("Make split", self)
        self.split_button.clicked.connect(self.start_split)
        self.save_button = QPushButton("Save split…", self)
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._choose_split_file)
        buttons.addWidget(self.split_button)
        buttons.addWidget(self.save_button)
        buttons.addStretch(1)
        row.addLayout(buttons)
        row.addStretch(1)
        return row

    def _write_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel("Format:", self))
        self.format = QComboBox(self)
        for fmt in FORMATS:
            self.format.addItem(FORMAT_WORDS[fmt], fmt)
        row.addWidget(self.format)
        self.explain = QCheckBox("Show the oracle's values before each answer", self)
        row.addWidget(self.explain)
        row.addStretch(1)
        self.write_button = QPushButton("Write training set…", self)
        self.write_button.setEnabled(False)
        self.write_button.clicked.connect(self._choose_folder)
        row.addWidget(self.write_button)
        return row

    # -- the split ------------------------------------------------------------------------
    def start_split(self) -> None:
        if not self.db_path:
            return
        self.split_button.setEnabled(False)
        self._say("Making the split (an oracle per model, on a worker thread)…")
        self.tasks.start(self._split(), "make a split")

    async def _split(self) -> None:
        try:
            found = await in_thread(
                make_split,
                str(self.db_path),
                self.by.currentData(),
                self.share.value(),
                self.seed.value(),
            )
        except ExplaincheckError as error:
            self._say(str(error), bad=True)
        else:
            self.show_split(found)
        finally:
            self.split_button.setEnabled(True)

    def show_split(self, found: SplitCounts) -> None:
        """The counts per category and part; saving becomes possible."""
        self.found, self.split_path, self.records = found, None, {}
        self._fill()
        train, held, left = found.totals
        self._say(
            f"{train} training and {held} held-out questions; {left} left out (they share a"
            " state or successor with both sides). Save the split, then write a training set"
            " from its train part."
        )
        self.save_button.setEnabled(True)
        self.write_button.setEnabled(False)

    def _fill(self) -> None:
        rows = list(self.found.rows) if self.found else []
        if rows:
            totals = self.found.totals if self.found else (0, 0, 0)
            rows.append(("all", *totals))
        self.table.setRowCount(len(rows))
        for r, (category, *counts) in enumerate(rows):
            records = self.records.get(category, 0 if self.records else None)
            if category == "all" and self.records:
                records = sum(self.records.values())
            cells = [category, *map(str, counts), "" if records is None else str(records)]
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()

    def _choose_split_file(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save the split", "split.json", "Split (*.json);;All files (*)"
        )
        if path:
            self.tasks.start(self.save(path), "save a split")

    async def save(self, path: str) -> None:
        if self.found is None:
            return
        try:
            digest = await in_thread(save_split, self.found, path)
        except ExplaincheckError as error:
            self._say(str(error), bad=True)
            return
        self.split_path = path
        self.write_button.setEnabled(True)
        self._say(f"Saved {path} (sha256 {digest[:12]}…).")

    # -- the training set -----------------------------------------------------------------
    def _choose_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Write the training set into")
        if path:
            self.tasks.start(self.write(path), "write a training set")

    async def write(self, folder: str) -> None:
        if not (self.db_path and self.split_path):
            return
        self.write_button.setEnabled(False)
        fmt = self.format.currentData()
        try:
            info = await in_thread(
                write_training_set,
                str(self.db_path),
                self.split_path,
                fmt,
                self.explain.isChecked(),
                folder,
            )
        except ExplaincheckError as error:
            self._say(str(error), bad=True)
            return
        finally:
            self.write_button.setEnabled(True)
        self.records = dict(info["records_per_category"])
        self._fill()
        left = "; ".join(f"{why}: {n}" for why, n in info["left_out"].items())
        self._say(
            f"{info['records']} {fmt} records in {folder} (train.jsonl, index.jsonl, README.md)"
            + (f"; left out: {left}" if left else "")
        )

    def _say(self, text: str, *, bad: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #b00020;" if bad else "")


def add_training_set_action(window: Any, menu: QMenu) -> QAction:
    """Results › Make a training set… (the open results file)."""
    action = QAction("Make a training set…", window)
    action.setStatusTip("Split the open results into train and held-out, and write training data")

    def open_dialog() -> None:
        dialog = TrainingSetDialog(window.results.db_path, window.tasks, window)
        dialog.resize(min(900, window.width()), min(620, window.height()))
        window.training_set_dialog = dialog  # kept: the dialog is not modal
        dialog.show()

    action.triggered.connect(open_dialog)
    menu.addAction(action)
    return action

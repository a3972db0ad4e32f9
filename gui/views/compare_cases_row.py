"""The Compare dialog's cases row: all cases, or one part of a split, and the preset "Before/after
on held-out cases" (a repair judged on questions it never saw: ``compare --cases``).

Why a row of its own: the dialog's gate and table stay as they are; this row only cuts both
sides to a split's part before they are compared, and says per category whether the new side is
better, worse or unchanged.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from explaincheck.gui.adapters.training_set import cut_to_part, judgement

ALL, HELD_OUT, TRAIN = "", "held_out", "train"
CHOICES = (
    ("All cases", ALL),
    ("Held-out cases of a split", HELD_OUT),
    ("Training cases of a split", TRAIN),
)


class CasesRow(QWidget):
    """Which cases are compared; ``changed`` when the choice or the split file changes."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Cases:", self))
        self.choice = QComboBox(self)
        for title, part in CHOICES:
            self.choice.addItem(title, part)
        self.choice.currentIndexChanged.connect(lambda _i: self.changed.emit())
        row.addWidget(self.choice)
        self.path = QLineEdit(self)
        self.path.setReadOnly(True)
        self.path.setPlaceholderText("split.json (explaincheck split, or Make a training set…)")
        row.addWidget(self.path, 1)
        choose = QPushButton("Split…", self)
        choose.clicked.connect(self._choose)
        row.addWidget(choose)
        self.preset = QPushButton("Before/after on held-out cases", self)
        self.preset.setToolTip(
            "Open the base (before the repair) and the new file (after it), choose their split:"
            " the gate on the held-out questions only, better / worse / no change per category"
        )
        self.preset.clicked.connect(self.use_preset)
        row.addWidget(self.preset)

    @property
    def part(self) -> str:
        return str(self.choice.currentData() or ALL)

    def use_preset(self) -> None:
        """Held-out cases of the chosen split (asking for the split first if none is)."""
        if not self.path.text():
            self._choose()
        if self.path.text():
            self.set_part(HELD_OUT)

    def set_part(self, part: str, split_path: str | None = None) -> None:
        if split_path is not None:
            self.path.setText(split_path)
        index = self.choice.findData(part)
        if index == self.choice.currentIndex():
            self.changed.emit()
        else:
            self.choice.setCurrentIndex(index)

    def _choose(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a split", "", "Split (*.json);;All files (*)"
        )
        if path:
            self.path.setText(path)
            if self.part:
                self.changed.emit()

    def cut(self, base: pd.DataFrame, new: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Both sides cut to the chosen part (unchanged for all cases); an ``ExplaincheckError``
        (one line) when no split is chosen or a side has none of its cases."""
        if not self.part:
            return base, new
        if not self.path.text():
            from explaincheck.core.errors import ExplaincheckError

            raise ExplaincheckError("Choose the split (Split…) whose cases to compare.")
        ours, theirs, _ = cut_to_part(base, new, self.path.text(), self.part)
        return ours, theirs

    def judged_text(self, comparison: Any, base: pd.DataFrame) -> str:
        """ " Held-out: BETTER overall; best_action better, …" (nothing for all cases)."""
        if not self.part:
            return ""
        found = judgement(self.part, comparison, base)
        overall = found[-1][1]
        lines = ", ".join(f"{c} {v}" for c, v in found[:-1])
        name = "Held-out" if self.part == HELD_OUT else "Training"
        return f"{name} cases: {overall.upper()} overall; {lines}."

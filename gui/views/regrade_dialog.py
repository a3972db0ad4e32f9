"""Asks for the satisfy rule and tolerance under which to grade the stored replies again."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QVBoxLayout,
    QWidget,
)

from explaincheck.gui.support.safe_text import plain_label

RULES = (
    ("absolute", "Absolute: |p − V(s)| ≤ tolerance"),
    ("half", "Half: p and V(s) on the same side of 1/2"),
)


class RegradeDialog(QDialog):
    """Rule and tolerance; the tolerance applies to the absolute rule only."""

    def __init__(
        self, database: str, rule: str = "absolute", tolerance: float = 0.05, parent: Any = None
    ) -> None:
        super().__init__(parent if isinstance(parent, QWidget) else None)
        self.setWindowTitle("Re-grade stored replies")
        layout = QVBoxLayout(self)
        note = plain_label(
            f"Grade every stored reply in {database} again under another satisfy rule. No LLM is"
            " asked; the file is changed in place."
        )
        note.setWordWrap(True)
        layout.addWidget(note)
        form = QFormLayout()
        self.rule = QComboBox(self)
        for key, text in RULES:
            self.rule.addItem(text, key)
        self.rule.setCurrentIndex(max(0, self.rule.findData(rule)))
        self.tolerance = QDoubleSpinBox(self)
        self.tolerance.setRange(0.0, 1.0)
        self.tolerance.setDecimals(3)
        self.tolerance.setSingleStep(0.01)
        self.tolerance.setValue(tolerance)
        self.rule.currentIndexChanged.connect(self._rule_changed)
        form.addRow("Satisfy rule:", self.rule)
        form.addRow("Tolerance:", self.tolerance)
        layout.addLayout(form)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Re-grade")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._rule_changed()

    def _rule_changed(self, *_args: object) -> None:
        self.tolerance.setEnabled(self.satisfy_rule() == "absolute")

    def satisfy_rule(self) -> str:
        return str(self.rule.currentData())

    def satisfy_tolerance(self) -> float:
        return float(self.tolerance.value())

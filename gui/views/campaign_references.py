"""The Campaign tab's reference explainers: answerers with known flaws, beside the baselines.

A campaign that includes them shows which categories catch which flaw
(docs/fault-detection.md); ``noisy:Q`` takes its Q from the box under the list.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.campaign_llm_box import SPEC, checked
from explaincheck.gui.views.llm_choices import LlmChoices

NOISY_PREFIX = "noisy:"


class ReferenceBox(QGroupBox):
    """ "Reference explainers (known flaws)": a checkable list and the noisy explainer's Q."""

    def __init__(self, answerers: LlmChoices, parent: QWidget | None = None) -> None:
        super().__init__("Reference explainers (known flaws)", parent)
        layout = QVBoxLayout(self)
        self.references = QListWidget(self)
        self.references.setMinimumHeight(150)
        self.references.setMaximumHeight(220)
        self.references.setWordWrap(True)  # each description stays readable, on its lines
        self.references.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for choice in answerers.offered:
            if choice.reference:
                self._add(choice.spec, choice.text)
        self.noisy_item = self._add(
            NOISY_PREFIX, "noisy:Q — the oracle's answer with probability Q, else a random guess"
        )
        self.noisy_item.setToolTip("")
        layout.addWidget(self.references)
        q_row = QHBoxLayout()
        q_row.addWidget(plain_label("noisy Q:"))
        self.noisy_share = QDoubleSpinBox(self)
        self.noisy_share.setRange(0.0, 1.0)
        self.noisy_share.setDecimals(2)
        self.noisy_share.setSingleStep(0.25)
        self.noisy_share.setValue(0.5)
        self.noisy_share.setToolTip("Share of cases the noisy explainer answers like the oracle")
        q_row.addWidget(self.noisy_share)
        q_row.addStretch(1)
        layout.addLayout(q_row)

    def _add(self, spec: str, text: str) -> QListWidgetItem:
        item = QListWidgetItem(text)
        item.setData(SPEC, spec)
        item.setFlags(
            Qt.ItemFlag.ItemIsUserCheckable
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsEnabled
        )
        item.setCheckState(Qt.CheckState.Unchecked)
        item.setToolTip(text)
        self.references.addItem(item)
        return item

    def _items(self) -> list[QListWidgetItem]:
        return [self.references.item(i) for i in range(self.references.count())]

    def reference_specs(self) -> list[str]:
        """The ticked reference explainers as LLM specs (``noisy:Q`` with the Q box's value)."""
        return [
            f"{NOISY_PREFIX}{self.noisy_share.value():g}" if spec == NOISY_PREFIX else spec
            for spec in self._ticked()
        ]

    def _ticked(self) -> list[str]:
        return [i.data(SPEC) for i in self._items() if i.checkState() == Qt.CheckState.Checked]

    def set_reference_checked(self, spec: str, on: bool) -> None:
        for item in self._items():
            if item.data(SPEC) == spec:
                item.setCheckState(checked(on))

    def choices(self) -> dict[str, Any]:
        return {"references": self._ticked(), "noisy_share": self.noisy_share.value()}

    def apply(self, choices: dict[str, Any]) -> None:
        references = choices.get("references")
        if isinstance(references, list):
            for item in self._items():
                item.setCheckState(checked(item.data(SPEC) in references))
        if isinstance(choices.get("noisy_share"), int | float):
            self.noisy_share.setValue(float(choices["noisy_share"]))

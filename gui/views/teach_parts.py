"""The Teach tab's parts: the step cards and its two bars (which case; which answer).

They are only built here; ``TeachView`` connects them and fills the cards.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.taxonomy.teaching import taught
from explaincheck.gui.flaw_teaching import explanation
from explaincheck.gui.safe_text import plain_label
from explaincheck.gui.views.llm_choices import LlmChoices

REVEAL_TEXT = "Reveal ▸"


class Card(QFrame):
    """A titled panel of large plain text (never rich text: it may hold LLM output)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("teachCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        self.title = plain_label(title)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        layout.addWidget(self.title)
        self.body = plain_label("")
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.body, 1)

    def set_text(self, text: str) -> None:
        self.body.setText(text)


class CaseBar(QToolBar):
    """Category, order, and Previous / position / Next."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.addWidget(QLabel("Category: "))
        self.category = QComboBox(parent)
        for category in taught():
            self.category.addItem(category.name, category.id)
        self.addWidget(self.category)
        self.addWidget(QLabel(" Order: "))
        self.ordering = QComboBox(parent)
        self.ordering.addItem("most diagnostic first (δ)", "delta")
        self.ordering.addItem("by state id", "id")
        self.addWidget(self.ordering)
        self.previous_button = QPushButton("◀ Previous")
        self.addWidget(self.previous_button)
        self.position_label = QLabel("", parent)
        self.addWidget(self.position_label)
        self.next_button = QPushButton("Next ▶")
        self.addWidget(self.next_button)


class AnswerBar(QToolBar):
    """The LLM, the flawed explainer beside the oracle, Reveal and the text size."""

    def __init__(self, answerers: LlmChoices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.addWidget(QLabel("LLM: "))
        self.llm = QComboBox(parent)
        self.llm.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.addWidget(self.llm)
        self.addWidget(QLabel(" Beside the oracle: "))
        self.flaw = QComboBox(parent)
        self.flaw.addItem("no flawed explainer", "")
        # the flawed explainers only: other references (hedge) have no flawed picture to show
        flawed = (c.spec for c in answerers.offered if c.reference and c.spec.startswith("flaw:"))
        for spec in flawed:
            self.flaw.addItem(spec, spec)
            self.flaw.setItemData(
                self.flaw.count() - 1, explanation(spec), Qt.ItemDataRole.ToolTipRole
            )
        self.flaw.setToolTip("Show what a reference explainer with a known flaw answers")
        self.addWidget(self.flaw)
        self.reveal_button = QPushButton(REVEAL_TEXT)
        self.reveal_button.setToolTip("Reveal the next step, or go to the next case (Space)")
        self.addWidget(self.reveal_button)
        # short buttons, so A+ stays on the bar of a 1366-pixel screen (not in its overflow)
        self.zoom_out = QPushButton("A−")
        self.zoom_out.setToolTip("Smaller text")
        self.zoom_in = QPushButton("A+")
        self.zoom_in.setToolTip("Larger text")
        spacer = QWidget(parent)
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.addWidget(spacer)
        for button in (self.zoom_out, self.zoom_in):
            button.setMaximumWidth(button.fontMetrics().horizontalAdvance("A−") + 24)
            self.addWidget(button)

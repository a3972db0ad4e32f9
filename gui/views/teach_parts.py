"""The Teach tab's parts: the step cards and its two bars (which case; which answer).

They are only built here; ``TeachView`` connects them and fills the cards. Their choices (the
taught categories, the orders, the flaws' words) come from the Teach workspace.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.workspace.presentation.teach import (
    ORDERINGS,
    REVEAL_TEXT,
    explanation,
    taught_choices,
)
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.flow_layout import FlowLayout
from explaincheck.gui.views.llm_choices import LlmChoices

__all__ = ["REVEAL_TEXT", "AnswerBar", "Card", "CaseBar"]


class Card(QFrame):
    """A titled panel of large plain text (never rich text: it may hold LLM output)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("teachCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        self.title = plain_label(title)
        self.title.setWordWrap(True)  # at a large presentation size it outgrows a narrow pane
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


class _FlowBar(QWidget):
    """A bar that wraps its controls onto another line when the tab is narrow (a 1280-px
    screen with both side panels open, large lecture text) instead of hiding the last ones in
    a toolbar's overflow menu (issue 39); a title stays on the line of its box."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.flow = FlowLayout(self, spacing=6)
        self.flow.setContentsMargins(0, 0, 0, 0)

    def add(self, widget: QWidget, title: str = "", stretch: bool = False) -> None:
        if not title:
            self.flow.add(widget, stretch)
            return
        pair = QWidget(self)
        row = QHBoxLayout(pair)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel(title, pair))
        row.addWidget(widget)
        self.flow.add(pair, stretch)


class CaseBar(_FlowBar):
    """Category, order, and Previous / position / Next."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.category = QComboBox(self)
        for name, category_id in taught_choices():
            self.category.addItem(name, category_id)
        self.add(self.category, "Category:")
        self.ordering = QComboBox(self)
        for text, key in ORDERINGS:
            self.ordering.addItem(text, key)
        self.add(self.ordering, "Order:")
        self.previous_button = QPushButton("◀ Previous", self)
        self.add(self.previous_button)
        self.position_label = QLabel("", self)
        self.add(self.position_label)
        self.next_button = QPushButton("Next ▶", self)
        self.add(self.next_button)


class AnswerBar(_FlowBar):
    """The LLM, the flawed explainer beside the oracle, Reveal and the text size."""

    def __init__(self, answerers: LlmChoices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.llm = QComboBox(self)
        self.llm.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.add(self.llm, "LLM:")
        self.flaw = QComboBox(self)
        self.flaw.addItem("no flawed explainer", "")
        for spec in (c.spec for c in answerers.offered if c.flaw_picture):
            self.flaw.addItem(spec, spec)
            self.flaw.setItemData(
                self.flaw.count() - 1, explanation(spec), Qt.ItemDataRole.ToolTipRole
            )
        self.flaw.setToolTip("Show what a reference explainer with a known flaw answers")
        self.add(self.flaw, "Beside the oracle:")
        self.reveal_button = QPushButton(REVEAL_TEXT, self)
        self.reveal_button.setToolTip("Reveal the next step, or go to the next case (Space)")
        self.add(self.reveal_button)
        # short buttons, so A+ stays on the bar of a 1366-pixel screen (not in its overflow)
        self.zoom_out = QPushButton("A−", self)
        self.zoom_out.setToolTip("Smaller text")
        self.zoom_in = QPushButton("A+", self)
        self.zoom_in.setToolTip("Larger text")
        spacer = QWidget(self)
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.add(spacer, stretch=True)
        for button in (self.zoom_out, self.zoom_in):
            button.setMaximumWidth(button.fontMetrics().horizontalAdvance("A−") + 24)
            self.add(button)

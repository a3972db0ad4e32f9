"""One execution in full: prompt, raw reply, thinking, parsed vs expected answer, the oracle.

Everything shown here that came from an LLM or a file goes into plain-text widgets
(QPlainTextEdit / plain labels), so a reply full of HTML is shown as the characters it is. The
texts are the Qt-free ``case_text`` (``core/workspace/presentation/results/case_text.py``); a
row is a ``StoredExecution`` (the Results tab) or a ``results --json`` dict (side by side, the
campaign comparison).

The Results tab's detail is a *case view* (``case_view=True``, issue 50): three columns side by
side — the prompt's question (the whole prompt a click away), the reply above the parsed and
expected answers, and the oracle's values behind the verdict — so that one click on a row
shows the case whole on a laptop screen; the parsed and expected answers take the lines they
need and the reply the rest. Its ✕ (or Esc) closes the case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.results.case_text import (
    NO_CASE,
    case_text,
    oracle_lines,
    pretty,
)
from explaincheck.core.workspace.presentation.results.rows import Row, as_dict
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.full_text_dialog import FullTextDialog

__all__ = ["DETAIL_MIN_HEIGHT", "CaseDetail", "oracle_lines", "pretty"]

TEXT_MIN_HEIGHT = 36  # two lines; the boxes scroll
DETAIL_MIN_HEIGHT = 220  # the verdict line and a few lines of prompt and reply
ANSWER_LINES = 6  # the parsed answer beside the expected one: a ranking needs two lines each


def _text_box(monospace: bool = False) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    box.setMinimumHeight(TEXT_MIN_HEIGHT)  # scrolls: several boxes share a laptop's height
    if monospace:
        box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return box


def text_height(box: QPlainTextEdit) -> int:
    """The height ``box`` needs to show its whole text at its present width, without a scroll
    bar (its wrapped lines, the document's margins and the frame)."""
    lines = int(box.document().documentLayout().documentSize().height())
    margins = int(2 * box.document().documentMargin()) + 2 * box.frameWidth()
    return max(1, lines) * box.fontMetrics().lineSpacing() + margins + 2


class CaseDetail(QWidget):
    """The Results tab's case view (``case_view``), and each side of the comparisons."""

    closed = Signal()  # the user closed the case (the ✕ or Esc)

    def __init__(
        self, parent: QWidget | None = None, compact: bool = False, case_view: bool = False
    ) -> None:
        super().__init__(parent)
        self.case_view = case_view
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.header = plain_label(NO_CASE)
        font = self.header.font()
        font.setBold(True)
        self.header.setFont(font)
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        self.reason = plain_label("")
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.reason)
        # the case link (gui/presenters/share_file.py adds it) and ✕ on one line
        self.links = QHBoxLayout()
        self.links.setContentsMargins(0, 0, 0, 0)
        self.links.addStretch(1)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕ Close case")
        self.close_button.setToolTip("Back to the list of executions (Esc)")
        self.close_button.clicked.connect(self.closed)
        self.close_button.setVisible(False)
        self.links.addWidget(self.close_button)
        layout.addLayout(self.links)

        self.prompt = _text_box()
        self.question = _text_box()
        self.reply = _text_box(monospace=True)
        self.thinking = _text_box()
        self.answers = _text_box(monospace=True)
        self.oracle = _text_box(monospace=True)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        self.whole_prompt = QToolButton()
        self.whole_prompt.setText("Whole prompt")
        self.whole_prompt.setCheckable(True)
        self.whole_prompt.setToolTip("The whole prompt the LLM was given, not only its question")
        if case_view:
            self.prompt_pages = QStackedWidget()
            self.prompt_pages.addWidget(self.question)
            self.prompt_pages.addWidget(self.prompt)
            self.whole_prompt.toggled.connect(self._whole_prompt)
            self.prompt_box = self._boxed("Question", self.prompt_pages, self.whole_prompt)
            split.addWidget(self.prompt_box)
        elif not compact:
            split.addWidget(self._boxed("Prompt", self.prompt))
        right = QSplitter(Qt.Orientation.Vertical)
        right.setChildrenCollapsible(False)
        self.full_reply_button = QPushButton("Show full reply…")
        self.full_reply_button.setToolTip("The reply is long: only its start is shown here")
        self.full_reply_button.clicked.connect(self.show_full_reply)
        self.full_reply_button.hide()
        self.reply_box = self._boxed("Raw reply", self.reply, self.full_reply_button)
        right.addWidget(self.reply_box)
        self.thinking_box = self._boxed("Thinking", self.thinking)
        right.addWidget(self.thinking_box)
        self.answers_box = self._boxed("Parsed answer · expected", self.answers)
        right.addWidget(self.answers_box)
        self.oracle_box = self._boxed("Oracle values behind the verdict", self.oracle)
        if case_view:  # the oracle's column of its own, beside the reply
            split.addWidget(right)
            split.addWidget(self.oracle_box)
            split.setStretchFactor(0, 3)
            split.setStretchFactor(1, 3)
            split.setStretchFactor(2, 4)
        else:
            # parsed, expected and the grade's reason: room for six lines before it scrolls
            lines = self.answers.fontMetrics().lineSpacing() * ANSWER_LINES + 12
            self.answers.setMinimumHeight(lines)
            right.addWidget(self.oracle_box)
            split.addWidget(right)
        self.right = right
        self.columns = split
        layout.addWidget(split, 1)
        self.row: dict[str, Any] | None = None  # the shown row as a dict (factor panel, link)
        self.shown_row: Row | None = None  # the row as it was given
        self.factor_panel: Any = None  # views.factor_panel.FactorPanel, when attached
        self.factor_context: Callable[[], tuple[Any, str | None]] | None = None
        self.factor_box: QGroupBox | None = None
        self.case_link: Any = None  # gui.share_file.CaseLinkRow, when attached
        self.row_shown: list[Callable[[dict[str, Any] | None], None]] = []  # after show_row
        if case_view:
            split.hide()  # until a case is shown: the list has the room

    def add_link_row(self, row: QWidget) -> None:
        """The case's link (``share_file.CaseLinkRow``), on the line of ✕."""
        self.links.insertWidget(0, row, 1)

    def attach_factor_panel(
        self, panel: QWidget, context: Callable[[], tuple[Any, str | None]]
    ) -> None:
        """Show ``panel`` (a FactorPanel) for ``factors`` cases; ``context`` gives the open
        environment and the results database when a row is shown."""
        self.factor_panel, self.factor_context = panel, context
        # scrolled rather than squeezed: the side-by-side details share the height of one
        scroll = QScrollArea()
        scroll.setWidget(panel)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setMinimumHeight(110)  # a few factors' marks; it scrolls for the rest
        # a short title: a group box is never narrower than its title, and the side-by-side
        # details share the width a laptop leaves between the docks
        self.factor_box = self._boxed("Factors", scroll)
        self.factor_box.setToolTip("Each factor: cited · necessary · sufficient · behaviour")
        self.right.addWidget(self.factor_box)
        self.factor_box.hide()

    def _show_factors(self, row: dict[str, Any] | None, oracle: OracleResult | None) -> None:
        if self.factor_panel is None or self.factor_context is None or self.factor_box is None:
            return
        environment, db_path = self.factor_context()
        shown = self.factor_panel.show_case(row, oracle, environment, db_path)
        self.factor_box.setVisible(shown)

    @staticmethod
    def _boxed(title: str, widget: QWidget, extra: QWidget | None = None) -> QGroupBox:
        box = QGroupBox(title)
        inner = QVBoxLayout(box)
        inner.setContentsMargins(4, 4, 4, 4)
        inner.addWidget(widget)
        if extra is not None:
            inner.addWidget(extra)
        return box

    def _whole_prompt(self, on: bool) -> None:
        self.prompt_pages.setCurrentWidget(self.prompt if on else self.question)
        self.prompt_box.setTitle("Prompt" if on else "Question")

    def show_full_reply(self) -> FullTextDialog | None:
        """The whole reply in a dialog (non-modal; it can also save it to a file)."""
        if self.row is None or self.row.get("reply") is None:
            return None
        dialog = FullTextDialog("Full reply", str(self.row["reply"]), self)
        dialog.show()
        self.full_text_dialog = dialog
        return dialog

    def show_row(
        self,
        row: Row | None,
        oracle: OracleResult | None = None,
        variables: Mapping[str, str] | None = None,
    ) -> None:
        """Show ``row`` (None: nothing); ``oracle`` only when the row was graded on it."""
        self.shown_row = row
        self.row = None if row is None else as_dict(row)
        text = case_text(row, oracle, variables)
        self.header.setText(text.header)
        self.reason.setText(text.reason)
        self.reason.setVisible(bool(text.reason))
        self.prompt.setPlainText(text.prompt)
        self.question.setPlainText(text.question)
        self.reply.setPlainText(text.reply)
        self.full_reply_button.setVisible(text.reply_shortened)
        self.thinking.setPlainText(text.thinking)
        if row is not None:
            self.thinking_box.setVisible(bool(text.thinking))
        self.answers.setPlainText(text.answers)
        self.oracle.setPlainText(text.oracle)
        self._show_factors(self.row, oracle)
        if self.case_view:
            self.columns.setVisible(row is not None)
            self.close_button.setVisible(row is not None)
            QTimer.singleShot(0, self._fit)  # once the columns shown have their sizes
        for listener in self.row_shown:
            listener(self.row)

    def fit_columns(self) -> None:
        """The oracle's column as wide as its longest line (a quarter to 45 % of the width),
        the question and the reply sharing the rest: a one-state case leaves the question the
        room, a case of four states with their Q values gets the oracle's lines unbroken."""
        total = sum(self.columns.sizes())
        if not self.case_view or self.row is None or total <= 0 or self.columns.count() != 3:
            return
        metrics = self.oracle.fontMetrics()
        longest = max(
            (metrics.horizontalAdvance(line) for line in self.oracle.toPlainText().splitlines()),
            default=0,
        )
        chrome = 2 * self.oracle.frameWidth() + int(2 * self.oracle.document().documentMargin())
        bar = self.oracle.verticalScrollBar().sizeHint().width()
        wanted = longest + chrome + bar + 24  # the box's margins and frame
        oracle = min(max(wanted, total // 4), total * 45 // 100)
        left = (total - oracle) // 2
        self.columns.setSizes([left, total - oracle - left, oracle])

    def fit_answers(self) -> None:
        """The parsed and expected answers get the lines they need (up to half the column),
        the reply the rest of its column."""
        if not self.case_view or self.row is None:
            return
        boxes = [self.reply_box, self.thinking_box, self.answers_box]
        if self.factor_box is not None:
            boxes.append(self.factor_box)
        chrome = self.answers_box.height() - self.answers.height()
        wanted = text_height(self.answers) + max(chrome, 0)
        total = sum(self.right.sizes())
        answers = min(wanted, total // 2)
        sizes = []
        for index in range(self.right.count()):
            widget = self.right.widget(index)
            shown = widget is not None and widget.isVisible()
            if widget is self.answers_box:
                sizes.append(answers)
            elif shown and widget is self.factor_box:
                sizes.append((total - answers) // 2)
            elif shown and widget is self.thinking_box:
                sizes.append((total - answers) // 3)
            else:
                sizes.append(0)
        rest = total - sum(sizes)
        sizes[self.right.indexOf(self.reply_box)] = max(rest, TEXT_MIN_HEIGHT)
        self.right.setSizes(sizes)

    def _fit(self) -> None:
        self.fit_columns()
        self.fit_answers()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.case_view:  # once the columns have their new widths (the lines wrap anew)
            QTimer.singleShot(0, self._fit)

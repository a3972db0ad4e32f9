"""One execution in full: prompt, raw reply, thinking, parsed vs expected answer, the oracle.

Everything shown here that came from an LLM or a file goes into plain-text widgets
(QPlainTextEdit / plain labels), so a reply full of HTML is shown as the characters it is. The
texts are the Qt-free ``case_text`` (``core/workspace/presentation/results/case_text.py``); a
row is a ``StoredExecution`` (the Results tab) or a ``results --json`` dict (side by side, the
campaign comparison).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
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


def _text_box(monospace: bool = False) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    box.setMinimumHeight(TEXT_MIN_HEIGHT)  # scrolls: several boxes share a laptop's height
    if monospace:
        box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return box


ANSWER_LINES = 6  # the parsed answer beside the expected one: a ranking needs two lines each


class CaseDetail(QWidget):
    """The lower half of the Results tab (and each side of the comparison)."""

    def __init__(self, parent: QWidget | None = None, compact: bool = False) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
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

        self.prompt = _text_box()
        self.reply = _text_box(monospace=True)
        self.thinking = _text_box()
        self.answers = _text_box(monospace=True)
        self.oracle = _text_box(monospace=True)
        split = QSplitter(Qt.Orientation.Horizontal)
        if not compact:
            split.addWidget(self._boxed("Prompt", self.prompt))
        right = QSplitter(Qt.Orientation.Vertical)
        self.full_reply_button = QPushButton("Show full reply…")
        self.full_reply_button.setToolTip("The reply is long: only its start is shown here")
        self.full_reply_button.clicked.connect(self.show_full_reply)
        self.full_reply_button.hide()
        right.addWidget(self._boxed("Raw reply", self.reply, self.full_reply_button))
        self.thinking_box = self._boxed("Thinking", self.thinking)
        right.addWidget(self.thinking_box)
        # parsed, expected and the grade's reason: room for six lines before it scrolls
        self.answers.setMinimumHeight(self.answers.fontMetrics().lineSpacing() * ANSWER_LINES + 12)
        right.addWidget(self._boxed("Parsed answer · expected", self.answers))
        right.addWidget(self._boxed("Oracle values behind the case", self.oracle))
        self.right = right
        split.addWidget(right)
        layout.addWidget(split, 1)
        self.row: dict[str, Any] | None = None  # the shown row as a dict (factor panel, link)
        self.shown_row: Row | None = None  # the row as it was given
        self.factor_panel: Any = None  # views.factor_panel.FactorPanel, when attached
        self.factor_context: Callable[[], tuple[Any, str | None]] | None = None
        self.case_link: Any = None  # gui.share_file.CaseLinkRow, when attached
        self.row_shown: list[Callable[[dict[str, Any] | None], None]] = []  # after show_row

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
        if self.factor_panel is None or self.factor_context is None:
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
        self.prompt.setPlainText(text.prompt)
        self.reply.setPlainText(text.reply)
        self.full_reply_button.setVisible(text.reply_shortened)
        self.thinking.setPlainText(text.thinking)
        if row is not None:
            self.thinking_box.setVisible(bool(text.thinking))
        self.answers.setPlainText(text.answers)
        self.oracle.setPlainText(text.oracle)
        self._show_factors(self.row, oracle)
        for listener in self.row_shown:
            listener(self.row)

"""A plain-text editor for PRISM source: line numbers, syntax colours, an error underline.

Qt's own QPlainTextEdit gives undo/redo and the usual keys; this adds a line-number gutter, a
highlighter for PRISM's keywords, comments, numbers and labels, and ``show_error(line, column)``,
which underlines the token Storm complained about with a red wave and keeps the message beside.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QRect, QRegularExpression, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextOption,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from explaincheck.gui.support.text_size import relative_font

KEYWORDS = (
    "mdp",
    "dtmc",
    "ctmc",
    "module",
    "endmodule",
    "const",
    "int",
    "double",
    "bool",
    "rational",
    "formula",
    "label",
    "init",
    "endinit",
    "global",
    "true",
    "false",
    "rewards",
    "endrewards",
    "min",
    "max",
    "floor",
    "ceil",
    "mod",
    "pow",
    "log",
    "func",
)


def _format(colour: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    chosen = QTextCharFormat()
    chosen.setForeground(QColor(colour))
    if bold:
        chosen.setFontWeight(QFont.Weight.Bold)
    chosen.setFontItalic(italic)
    return chosen


class PrismHighlighter(QSyntaxHighlighter):
    """Keywords bold blue, numbers teal, "labels" and [actions] brown, // comments grey."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        words = "|".join(KEYWORDS)
        self.rules = [
            (QRegularExpression(rf"\b({words})\b"), _format("#1f4e9c", bold=True)),
            (QRegularExpression(r"\b\d+(\.\d+)?([eE][-+]?\d+)?\b"), _format("#0b7a75")),
            (QRegularExpression(r'"[^"]*"'), _format("#8a4b08")),
            (QRegularExpression(r"\[[A-Za-z_][A-Za-z0-9_]*\]"), _format("#8a4b08", bold=True)),
            (QRegularExpression(r"//[^\n]*"), _format("#777777", italic=True)),
        ]

    def highlightBlock(self, text: str) -> None:
        for pattern, chosen in self.rules:
            found = pattern.globalMatch(text)
            while found.hasNext():
                match = found.next()
                self.setFormat(match.capturedStart(), match.capturedLength(), chosen)


class _Gutter(QWidget):
    def __init__(self, editor: PrismEditor) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_gutter(event)


class PrismEditor(QPlainTextEdit):
    """The source editor; ``error`` is (line, column, message) while one is shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # a command wraps at the editor's width (its line number on its first row): beside the
        # graph and both docks the editor is ~400 px wide, and every command was cut, the view
        # scrolling sideways while one typed (issue 50, point 10)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.highlighter = PrismHighlighter(self.document())
        self.gutter = _Gutter(self)
        relative_font(self, fixed=True)  # the fixed-pitch font, at the presentation size
        self.error: tuple[int, int | None, str] | None = None
        self.blockCountChanged.connect(lambda _: self._update_margin())
        self.updateRequest.connect(self._scroll_gutter)
        self._update_margin()

    # -- line numbers ----------------------------------------------------------------------
    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 12 + self.fontMetrics().horizontalAdvance("9") * max(3, digits)

    def _update_margin(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _scroll_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # another presentation size: wider numbers
            self._update_margin()
            self.resizeEvent(QResizeEvent(self.size(), self.size()))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        area = self.contentsRect()
        self.gutter.setGeometry(QRect(area.left(), area.top(), self.gutter_width(), area.height()))

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self.gutter)
        painter.fillRect(event.rect(), QColor("#f0f0f0"))
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        height = self.fontMetrics().height()
        error_line = self.error[0] if self.error else None
        while block.isValid() and top <= event.rect().bottom():
            number = block.blockNumber() + 1
            if block.isVisible():
                painter.setPen(QColor("#c0392b") if number == error_line else QColor("#888888"))
                painter.drawText(
                    0,
                    top,
                    self.gutter.width() - 6,
                    height,
                    Qt.AlignmentFlag.AlignRight,
                    str(number),
                )
            top += round(self.blockBoundingRect(block).height())
            block = block.next()

    # -- errors ----------------------------------------------------------------------------
    def show_error(self, line: int, column: int | None, message: str) -> None:
        """Underline the token at ``line``:``column`` (1-based; the whole line without a
        column) with a red wave."""
        self.error = (line, column, message)
        block = self.document().findBlockByNumber(max(0, line - 1))
        cursor = QTextCursor(block)
        text = block.text()
        if column is not None and 1 <= column <= len(text) + 1:
            start = column - 1
            match = re.match(r"\[?\w+\]?|\S", text[start:])
            length = len(match.group(0)) if match else 1
            if start >= len(text):  # Storm points just past the end: mark the last character
                start, length = max(0, len(text) - 1), 1
            cursor.setPosition(block.position() + start)
            cursor.setPosition(block.position() + start + length, QTextCursor.MoveMode.KeepAnchor)
        else:
            cursor.movePosition(
                QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor
            )
        selection = QTextEdit.ExtraSelection()
        wave = QTextCharFormat()
        wave.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        wave.setUnderlineColor(QColor("#d62728"))
        wave.setBackground(QColor("#f5b7b1"))  # the wave alone is thin at normal sizes
        wave.setToolTip(message)
        selection.format = wave  # type: ignore[attr-defined]
        selection.cursor = cursor  # type: ignore[attr-defined]
        line_mark = QTextEdit.ExtraSelection()
        band = QTextCharFormat()
        band.setBackground(QColor("#fdecea"))
        band.setProperty(QTextFormat.Property.FullWidthSelection, True)
        line_mark.format = band  # type: ignore[attr-defined]
        line_mark.cursor = QTextCursor(block)  # type: ignore[attr-defined]
        self.setExtraSelections([line_mark, selection])
        self.gutter.update()

    def clear_error(self) -> None:
        self.error = None
        self.setExtraSelections([])
        self.gutter.update()

    def underlined(self) -> tuple[int, int, str] | None:
        """(line, column, text) of the wavy underline, 1-based (for tests)."""
        for selection in self.extraSelections():
            style = selection.format.underlineStyle()  # type: ignore[attr-defined]
            if style == QTextCharFormat.UnderlineStyle.WaveUnderline:
                cursor = selection.cursor  # type: ignore[attr-defined]
                block = self.document().findBlock(cursor.selectionStart())
                column = cursor.selectionStart() - block.position() + 1
                return block.blockNumber() + 1, column, cursor.selectedText()
        return None

"""The full text of a long reply, on request: read-only, lines broken so Qt stays fast, and a
button to save it to a file exactly as received."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.workspace.presentation.long_text import broken_lines
from explaincheck.gui.support.safe_text import plain_label


class FullTextDialog(QDialog):
    def __init__(self, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.full_text = text
        self.resize(900, 650)
        layout = QVBoxLayout(self)
        self.note = plain_label(
            f"{len(text):,} characters. Lines longer than 1,000 characters are broken here for "
            "display; Save… writes the text exactly as received."
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        self.view = QPlainTextEdit(self)
        self.view.setReadOnly(True)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.setPlainText(broken_lines(text))
        layout.addWidget(self.view, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.save_button = buttons.addButton("Save…", QDialogButtonBox.ButtonRole.ActionRole)
        self.save_button.clicked.connect(self.choose_file)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def choose_file(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the full text", "reply.txt")
        if path:
            self.save(path)

    def save(self, path: str) -> None:
        from explaincheck.core.atomic_files import write_text_atomically

        write_text_atomically(path, self.full_text)
        self.note.setText(f"Saved {len(self.full_text):,} characters to {path}")

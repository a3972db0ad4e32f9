"""The Workbench's editor page: PRISM source with a live check.

About a second after typing stops the text is checked by Storm's parser in its child, and for
models that build within a few seconds the oracle is rebuilt too (graph and inspector follow);
larger models are re-checked on demand ("Check now"). Storm's error is underlined at its line and
column. A built-in environment opens as an untitled copy: Save asks where to put it.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.support.text_size import notifier
from explaincheck.gui.views.flow_layout import FlowLayout
from explaincheck.gui.views.prism_editor import PrismEditor

CHECK_DELAY_MS = 1000


def _without_path(message: str, folder: str) -> str:
    """Storm's message without the scratch copy's folder (the user knows which file)."""
    return message.replace(f"{folder}/", "").strip() if folder else message


class EditorPage(QWidget):
    check_requested = Signal(str, str, bool)  # text, file name, with the oracle
    save_requested = Signal(str, str)  # text, path

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source_path: str | None = None  # where Save writes (None: untitled copy)
        self.name = "model.prism"
        self.builtin = False
        self.oracle_while_typing = True  # the controller says whether the model is quick
        self.editor = PrismEditor(self)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(CHECK_DELAY_MS)
        self.timer.timeout.connect(self._auto_check)
        self.load_button = QPushButton("Edit the open model")
        self.load_button.setToolTip("load the open model's source (a built-in opens as a copy)")
        self.save_button = QPushButton("Save")
        self.save_as_button = QPushButton("Save as…")
        self.check_button = QPushButton("Check now")
        self.auto = QCheckBox("live check")
        self.auto.setToolTip("check about a second after typing stops")
        self.auto.setChecked(True)
        self.status = plain_label("Open a model, then “Edit the open model”.")
        self.status.setWordWrap(True)
        # room for an error of three lines from the start: a message that grew the line under
        # the editor shrank the editor, which then scrolled under the typing (issue 50)
        self._fit_status()
        notifier().changed.connect(self._fit_status)
        bar = FlowLayout()  # wraps in the narrow page rather than squeezing the buttons
        for widget in (self.load_button, self.save_button, self.save_as_button, self.check_button):
            bar.add(widget)
        bar.add(self.auto)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.status)
        self.editor.textChanged.connect(self._edited)
        self.save_button.clicked.connect(self.save)
        self.save_as_button.clicked.connect(self.save_as)
        self.check_button.clicked.connect(lambda: self.check(with_oracle=True))
        self._loading = False

    def _fit_status(self, _scale: float = 1.0) -> None:
        self.status.setMinimumHeight(3 * self.status.fontMetrics().lineSpacing())

    def open_source(self, path: str, builtin: bool) -> None:
        """Show ``path``'s text; a built-in's is a copy (Save asks for a new place)."""
        self._loading = True
        self.editor.setPlainText(Path(path).read_text(encoding="utf-8"))
        self.editor.document().setModified(False)
        self._loading = False
        self.editor.clear_error()
        self.name = Path(path).name
        self.builtin = builtin
        self.source_path = None if builtin else path
        where = "a copy of the built-in model (Save asks where)" if builtin else path
        self.status.setText(f"Editing {where}")

    def _edited(self) -> None:
        if not self._loading and self.auto.isChecked():
            self.timer.start()

    def _auto_check(self) -> None:
        self.check(with_oracle=self.oracle_while_typing)

    def check(self, with_oracle: bool = True) -> None:
        self.timer.stop()
        self.check_requested.emit(self.editor.toPlainText(), self.name, with_oracle)

    def show_checking(self, what: str) -> None:
        self.status.setText("Checking the syntax…" if what == "syntax" else "Building the oracle…")

    def show_check(self, error: BaseException | None, scratch: str = "") -> None:
        """Clear the underline, or underline Storm's error at its line and column."""
        if error is None:
            self.editor.clear_error()
            self.status.setText("No errors: the model builds (graph and inspector updated).")
            return
        message = _without_path(str(error), scratch)
        line, column = getattr(error, "line", None), getattr(error, "column", None)
        if line is None:  # a build error may still name a line
            found = re.search(r":(\d+):(\d+):", str(error))
            if found:
                line, column = int(found.group(1)), int(found.group(2))
        if line is not None:
            self.editor.show_error(int(line), column, message)
        else:
            self.editor.clear_error()
        self.status.setText(f"Error: {message}")

    def save(self) -> None:
        if self.source_path is None:
            self.save_as()
            return
        self.save_requested.emit(self.editor.toPlainText(), self.source_path)

    def save_as(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save PRISM model", self.name, "PRISM (*.prism)"
        )
        if path:
            self.source_path = path
            self.save_requested.emit(self.editor.toPlainText(), path)

    def saved(self, path: str) -> None:
        self.editor.document().setModified(False)
        self.name = Path(path).name
        self.status.setText(f"Saved {path}")

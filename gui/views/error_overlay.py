"""A model's error shown on the graph canvas, where the user looks after opening a model.

The panel floats over the top of the canvas (a child of the graph widget, kept as wide as it),
holds plain text only (the message can quote the user's file), and a source excerpt already cut
to a fixed width, so nothing here can widen the window.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFrame, QHBoxLayout, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.support.text_size import relative_font

MARGIN = 16


FIX_THE_FILE = (
    "Fix the file and open it again, or open a built-in environment from the Model panel."
)


class ErrorOverlay(QFrame):
    """'The model could not be built' + message + source excerpt, over ``host``."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.host = host
        self.setObjectName("canvasError")
        self.setStyleSheet(
            "#canvasError { background: #fdecea; border: 1px solid #d55e00; border-radius: 6px; }"
            " #canvasError QLabel { color: #5a1200; }"
        )
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.title = plain_label("The model could not be built")
        relative_font(self.title, 1.2, bold=True)  # kept so at every presentation size
        top.addWidget(self.title, 1)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setToolTip("Hide this message")
        self.close_button.clicked.connect(self.hide)
        top.addWidget(self.close_button)
        layout.addLayout(top)
        self.message = plain_label("")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.message)
        self.source = plain_label("")
        self.source.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.source.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.source.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.source)
        self.hint = plain_label(FIX_THE_FILE)
        self.hint.setWordWrap(True)
        self.hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.hint)
        host.installEventFilter(self)
        self.hide()

    def show_error(self, message: str, excerpt: str = "", hint: str = "") -> None:
        """``hint``: what to do next, when it is not fixing the file."""
        self.title.setText("Choose the goal" if hint else "The model could not be built")
        self.hint.setText(hint or FIX_THE_FILE)
        self.message.setText(message)
        self.source.setText(excerpt)
        self.source.setVisible(bool(excerpt))
        self._place()
        self.show()
        self.raise_()

    def _place(self) -> None:
        width = max(200, self.host.width() - 2 * MARGIN)
        self.setFixedWidth(width)
        self.adjustSize()
        self.move(MARGIN, MARGIN * 3)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.host and event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return False

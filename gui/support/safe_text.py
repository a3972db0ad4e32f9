"""Showing untrusted text (LLM replies, prompts, file content) without Qt interpreting it.

Qt guesses rich text for QLabel and tooltips (``Qt.mightBeRichText``), so an LLM reply holding
``<img src=...>`` would be rendered as HTML. Every widget that shows untrusted text goes through
these helpers: labels are forced to plain text, tooltips are escaped and wrapped.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def plain_label(text: str = "", parent: Any = None) -> QLabel:
    """A QLabel that never interprets its text as rich text."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def escaped(text: object) -> str:
    """HTML-escape any value (for composing rich text that embeds untrusted parts)."""
    return html.escape(str(text), quote=True)


def tooltip(text: object) -> str:
    """A tooltip that shows ``text`` literally, line breaks kept."""
    body = escaped(text).replace("\n", "<br>")
    return f"<qt>{body}</qt>"

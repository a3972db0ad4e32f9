"""Qt's own messages, with one harmless line left out.

The offscreen platform (every ``gui --screenshot`` and test) answers each window shown with
"This plugin does not support propagateSizeHints()": nothing is wrong, the plugin has no window
manager to tell. Only that exact message is dropped; every other one goes where it went before.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

SILENCED = ("This plugin does not support propagateSizeHints()",)

_previous = None
_installed = False


def _handler(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    if message.strip() in SILENCED:
        return
    if _previous is not None:
        _previous(kind, context, message)
    else:  # Qt's default handler prints the message on stderr
        print(message, file=sys.stderr)


def silence_harmless_messages() -> None:
    """Install the filter once (before the first window is shown)."""
    global _previous, _installed
    if _installed:
        return
    _previous = qInstallMessageHandler(_handler)
    _installed = True

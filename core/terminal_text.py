"""Untrusted text made safe to print on a terminal.

Why: server error texts, LLM replies, environment ids and stored fields come from outside. Printed
raw, an escape sequence in them could retitle the window (OSC), clear the screen or move the
cursor (CSI), plant a hyperlink (OSC 8) or reorder what the user reads (bidi overrides). Each
such character is shown as a visible escape (``\\x1b``, ``\\u202e``) instead, so the text stays
readable and the attempt stays visible, while newlines and tabs are kept. Lone surrogates (which
cannot be encoded for output at all) are escaped the same way.
"""

from __future__ import annotations

import re

from explaincheck.core.credentials import redact

# C0 controls except tab and newline, DEL, C1 controls, the bidi embedding/override/isolate marks,
# the left-to-right/right-to-left marks, the Unicode line/paragraph separators, and surrogates.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe_terminal(text: str) -> str:
    """``text`` with every terminal control character shown as a visible escape (linear time)."""
    if not isinstance(text, str):
        text = str(text)
    return _UNSAFE.sub(_escape, redact(text))

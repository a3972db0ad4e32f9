"""Text made safe to print on a terminal.

Why: results files, server error texts and environment folders are untrusted; printed raw, an
escape sequence in them can retitle the window, clear the screen, plant an OSC-8 link or hide
text behind bidi overrides. ``safe_terminal`` removes escape sequences and the characters a
terminal acts on, keeping newlines and tabs.
"""

from __future__ import annotations

import re

# ESC-started sequences: CSI (ESC [ ... final byte), OSC/DCS/PM/APC/SOS (ESC ] ... BEL or ST),
# then any other two-character escape. The 8-bit CSI/OSC introducers are C1 controls and go below.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, DCS, SOS, PM, APC up to BEL or ST
    r"|\x1b[\x20-\x7e]?"  # any other escape (or a lone ESC)
)
# C0 controls except \t and \n, DEL, C1 controls, bidi embeddings/overrides/isolates and marks.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def safe_terminal(text: str) -> str:
    """``text`` without ESC sequences, C0 controls (but \\n and \\t), C1 controls and bidi
    controls; each removed control becomes nothing (sequences) or U+FFFD (single characters),
    so a removal stays visible."""
    return _CONTROLS.sub("\ufffd", _ESCAPES.sub("", text))

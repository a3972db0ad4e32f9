"""``safe_terminal``: untrusted text shown on a terminal, never obeyed by it."""

from __future__ import annotations

import pytest

from explaincheck.core.terminal_text import safe_terminal


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text, ünïcode ✓\n\tindented", "plain text, ünïcode ✓\n\tindented"),
        ("\x1b]0;pwned\x07title", "\\x1b]0;pwned\\x07title"),  # OSC: window title
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # CSI: clear the screen
        ("\x1b]8;;http://evil\x1b\\link", "\\x1b]8;;http://evil\\x1b\\link"),  # OSC 8 link
        ("\x9b31mred\x9d", "\\x9b31mred\\x9d"),  # C1 CSI and OSC
        ("abc\u202edcba\u2066x\u2069", "abc\\u202edcba\\u2066x\\u2069"),  # bidi overrides
        ("over\rwrite\x08\x7f\x00", "over\\x0dwrite\\x08\\x7f\\x00"),
        ("lone \ud800 surrogate", "lone \\ud800 surrogate"),
        ("line\u2028sep", "line\\u2028sep"),
    ],
)
def test_controls_are_shown_as_escapes(raw, shown):
    assert safe_terminal(raw) == shown
    safe_terminal(raw).encode("utf-8")  # always printable


def test_nothing_dangerous_survives_any_code_point():
    every = "".join(chr(c) for c in range(0x3000) if not 0xD800 <= c <= 0xDFFF) + "\ud800"
    out = safe_terminal(every)
    out.encode("utf-8")
    assert not any(0 <= ord(ch) < 0x20 and ch not in "\n\t" for ch in out)
    assert not any(0x7F <= ord(ch) <= 0x9F for ch in out)
    assert not any(ch in out for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@pytest.mark.timeout(120)  # a hang guard: linear is well under a second here
def test_linear_on_a_long_hostile_text():
    text = "\x1b[" * 1_000_000
    assert safe_terminal(text).count("\\x1b") == 1_000_000


def test_non_text_is_shown_as_text():
    assert safe_terminal(42) == "42"  # type: ignore[arg-type]

"""The presentation size's steps, without Qt (issue 50, point 6: a lesson a class can read from
the back row).

The size is a percentage of the normal text size that every view's text, the graph's labels
and the plots are drawn at; Ctrl+plus and Ctrl+minus step through ``SIZES`` (the steps a web
browser's zoom takes, so 150 % is three steps up), and Settings sets any whole percentage in
``LIMITS``.
"""

from __future__ import annotations

SIZES = (75, 90, 100, 110, 125, 150, 175, 200)
LIMITS = (50, 300)
NORMAL = 100


def clamped(percent: int) -> int:
    """``percent`` within ``LIMITS`` (a settings file may hold anything)."""
    low, high = LIMITS
    return max(low, min(high, int(percent)))


def stepped(percent: int, direction: int) -> int:
    """The next size in ``SIZES`` above (``direction`` > 0) or below the current one; a size
    between two steps goes to the nearer step in that direction; past the ends it stays."""
    if direction > 0:
        return next((size for size in SIZES if size > percent), max(percent, SIZES[-1]))
    return next((size for size in reversed(SIZES) if size < percent), min(percent, SIZES[0]))


def size_text(percent: int) -> str:
    """How the size reads in the status bar's corner."""
    return f"Text {percent} %"

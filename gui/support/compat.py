"""A guard against a PySide6 build that corrupts Python's reference counts.

PySide6/shiboken6 6.12.0 returns ``None``, ``True`` and ``False`` to Python without taking a
reference (every void Qt call, every nullptr or invalid QVariant). On Python 3.12+ those objects
are immortal and nothing happens; on Python 3.11 the counts run down and the interpreter aborts
("deallocating None") after a few thousand Qt calls. 6.11.x does not have the bug. The check
probes the behaviour itself rather than trusting version numbers.
"""

from __future__ import annotations

import sys

ADVICE = "install PySide6-Essentials<6.12 (e.g. 6.11.3) or run on Python 3.12+"


def refcount_bug() -> bool:
    """Whether void Qt calls drop references to None in this interpreter."""
    if sys.version_info >= (3, 12):  # None is immortal: the bug is harmless
        return False
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(20):
        probe.setObjectName("explaincheck-probe")
    return sys.getrefcount(None) < before - 10


def problem() -> str | None:
    """A one-line explanation if this Qt cannot run the application safely, else None."""
    if refcount_bug():
        import PySide6

        return (
            f"PySide6 {PySide6.__version__} corrupts reference counts on Python "
            f"{sys.version_info.major}.{sys.version_info.minor} and would crash: {ADVICE}"
        )
    return None

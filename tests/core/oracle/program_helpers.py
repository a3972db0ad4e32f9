"""Child bodies for the program-description tests (module level, so ``spawn`` can pickle them)."""

from __future__ import annotations

import os
import signal


def segfault_child(path: str, memory_limit: int, connection, parent: int) -> None:
    """Dies the way a Storm crash does: a segmentation fault, nothing sent."""
    os.kill(os.getpid(), signal.SIGSEGV)

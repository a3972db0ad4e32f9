"""How many cores this process may use: a helper thread is worth starting only with two."""

from __future__ import annotations

import os


def available_cores() -> int:
    """Cores this process may run on (its affinity where the system says, else all)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1

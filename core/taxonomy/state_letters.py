"""The letters that name the states of a pair or subset in a question (K, L, M, ...).

Apart from ``kinds.py`` because ``metamorphic.py`` renames states with the letters after them,
and ``kinds.py`` builds its questions with ``metamorphic``'s helpers: both import this instead
of each other.
"""

from __future__ import annotations

# Letters the built-in wordings already use (A, B, C for jobs; S, F, H, G, R, D, X on maps) are
# left out so that "state A" can never be read as "job A" or a map symbol.
STATE_NAMES = "KLMNPTUVWYZEIJOQ"


def letters(count: int) -> tuple[str, ...]:
    """Names of the states of a pair or subset as shown to the LLM: K, L, M, N, ..."""
    if count > len(STATE_NAMES):
        raise ValueError(f"at most {len(STATE_NAMES)} states can be named in one question")
    return tuple(STATE_NAMES[:count])

"""One-line notices on stderr, each said once per process (a read-only cache, a huge model)."""

from __future__ import annotations

import sys

from explaincheck.core.terminal_text import safe_terminal

_said: set[str] = set()


def warn_once(message: str, *, kind: str = "warning") -> None:
    """Print ``explaincheck: KIND: message`` on stderr the first time it is given."""
    if message in _said:
        return
    _said.add(message)
    print(safe_terminal(f"explaincheck: {kind}: {message}"), file=sys.stderr, flush=True)

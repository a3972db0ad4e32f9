"""Waiting helpers shared by the GUI tests (spin Qt and asyncio until something holds)."""

from __future__ import annotations


def wait_for(qtbot, condition, timeout: float = 60.0) -> None:
    """Wait (spinning Qt and asyncio) until ``condition()`` is true."""
    qtbot.waitUntil(condition, timeout=int(timeout * 1000))


def open_env(qtbot, win, env: str, timeout: float = 120.0):
    """Open a built-in environment in the window and wait for the graph to be drawn."""
    win.model.open_spec(env)
    wait_for(
        qtbot,
        lambda: win.model.oracle is not None and win.graph.ready and win.graph.oracle is not None,
        timeout,
    )
    return win.model.oracle

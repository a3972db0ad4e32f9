"""What the graph's "Colour" box offers of the flawed explainers, and their pictures' values,
without Qt (issue 36: the graph's view used to compute the flawed oracles itself).

A choice is a view (V̂, or |V̂ − V|) of a flaw spec; ``flawed_values`` makes the flaw's
wrong-but-exact picture (``core.oracle.flawed.flawed_oracle``; ``myopic`` asks Storm), so it
runs on a worker thread. ``FlawColours`` is the graph's flaw colouring as state: the active
choice, the model, and the picture's values once computed (its event ``changed()`` asks for a
repaint). The colours themselves are the GUI's (``gui/views/flaw_colouring.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from explaincheck.core.oracle.flawed import flawed_oracle, parse_flaw
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.events import Event

COLOUR_FLAWS = ("flaw:myopic:2", "flaw:myopic:5", "flaw:determinised", "flaw:distance")
VALUE, DIFFERENCE = "flaw-v", "flaw-diff"  # the two views, as the prefix of a colour choice


def choice(view: str, spec: str) -> str:
    """The colour box's data for a view of a flaw, e.g. ``flaw-v|flaw:myopic:2``."""
    return f"{view}|{spec}"


def colour_choices() -> list[tuple[str, str]]:
    """(text, data) for the graph's "Colour" box, after V, D and none."""
    found = [(f"V ({spec})", choice(VALUE, spec)) for spec in COLOUR_FLAWS]
    found += [(f"|V̂ − V| ({spec})", choice(DIFFERENCE, spec)) for spec in COLOUR_FLAWS]
    return found


def parse_choice(kind: str) -> tuple[str, str] | None:
    """(view, spec) of a flaw colour choice, None for the plain ones."""
    view, _, spec = kind.partition("|")
    return (view, spec) if view in (VALUE, DIFFERENCE) and spec else None


def flawed_values(truth: OracleResult, spec: str) -> list[float]:
    """V̂ of every state, by state id (worker thread)."""
    picture = flawed_oracle(truth, parse_flaw(spec.removeprefix("flaw:")))
    return [float(state.value) for state in picture.states]


class FlawColours:
    """What the graph's flaw colouring shows: the chosen (view, spec), and V̂ per state of that
    flaw on the open model once computed (``None`` meanwhile: the states stay grey)."""

    def __init__(self, offload: Callable[..., Awaitable[Any]] | None = None) -> None:
        self._offload = offload or asyncio.to_thread
        self.oracle: OracleResult | None = None
        self.active: tuple[str, str] | None = None
        self.values: list[float] | None = None  # V̂ of the active flaw on ``oracle``
        self.failure = ""
        self.changed = Event("changed")  # (): repaint (values ready, or a failure said)

    @property
    def ready(self) -> bool:
        return self.active is not None and self.values is not None

    @property
    def scale_title(self) -> str:
        """The legend's title for the active choice ("" for none)."""
        if self.active is None:
            return ""
        view, spec = self.active
        return f"V̂(s) of {spec}" if view == VALUE else f"|V̂ − V| of {spec}"

    def set_oracle(self, oracle: OracleResult | None) -> Coroutine[Any, Any, None] | None:
        """A new model; the work to await for the active choice's picture, if any."""
        self.oracle, self.values = oracle, None
        return self._needed()

    def clear(self) -> None:
        """Back to the true values (a plain colour choice)."""
        self.active, self.values = None, None

    def choose(self, kind: str) -> Coroutine[Any, Any, None] | None:
        """Colour by ``kind`` (a flaw choice; anything else clears); the work to await for its
        picture, if it must be computed."""
        parsed = parse_choice(kind)
        if parsed is None:
            self.clear()
            return None
        if parsed != self.active:
            self.values = None
        self.active = parsed
        return self._needed()

    def _needed(self) -> Coroutine[Any, Any, None] | None:
        if self.active is None or self.values is not None or self.oracle is None:
            return None
        return self._compute(self.oracle, self.active)

    async def _compute(self, oracle: OracleResult, parsed: tuple[str, str]) -> None:
        try:
            values = await self._offload(flawed_values, oracle, parsed[1])
        except Exception as error:  # said in the legend title; the true colours stay usable
            self.failure = f"{parsed[1]}: {error}"
            self.changed.emit()
            return
        if oracle is self.oracle and parsed == self.active:
            self.values = values
            self.changed.emit()

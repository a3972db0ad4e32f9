"""Colour the graph by what a flawed explainer believes: its V̂ (on the same scale as the true V)
or how far it is from the truth, |V̂ − V|, so a lecture can show where a flaw goes wrong.

The graph keeps one colour hook (``GraphStyle.fill_source``); this module owns the colours and
when to ask for a picture; the choices and the flawed pictures' values are the Qt-free
``core.workspace.presentation.flaw_pictures`` (run on a worker thread: ``myopic`` asks Storm).
The graph view only forwards the user's choice here.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QColor

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.flaw_pictures import (
    VALUE,
    choice,
    flawed_values,
    parse_choice,
)
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views import colours
from explaincheck.gui.views.graph_items import GraphStyle


def fill_for(view: str, flawed: float, true: float) -> QColor:
    """V̂ on the viridis scale of V; the difference on the yellow-to-red scale (0: agrees)."""
    if view == VALUE:
        return colours.value_colour(flawed)
    return colours.danger_colour(abs(flawed - true))


class FlawColouring:
    """The graph's flaw colouring: sets the style's hook and recomputes when the model changes."""

    def __init__(self, style: GraphStyle, tasks: Tasks, changed: Callable[[], None]) -> None:
        self.style = style
        self.tasks = tasks
        self.changed = changed  # repaint the scene and legend
        self.oracle: OracleResult | None = None
        self.active: tuple[str, str] | None = None
        self.values: list[float] | None = None  # V̂ of the active flaw on ``oracle``
        self.failure = ""

    @staticmethod
    def handles(kind: str) -> bool:
        return parse_choice(kind) is not None

    def set_oracle(self, oracle: OracleResult | None) -> None:
        self.oracle = oracle
        self.values = None
        if self.active is not None:
            self.apply(choice(*self.active))

    def clear(self) -> None:
        """Back to the true values (a plain colour choice)."""
        self.active = None
        self.values = None
        self.style.fill_source = None
        self.style.scale_title = ""

    def apply(self, kind: str) -> None:
        """Colour by ``kind`` (a flaw choice); states stay grey until the picture is ready."""
        parsed = parse_choice(kind)
        if parsed is None:
            self.clear()
            return
        if parsed != self.active:
            self.values = None
        self.active = parsed
        view, spec = parsed
        self.style.colour_by = "value" if view == VALUE else "danger"  # the legend's scale
        self.style.scale_title = f"V̂(s) of {spec}" if view == VALUE else f"|V̂ − V| of {spec}"
        self.style.fill_source = self.fill
        if self.values is None and self.oracle is not None:
            self.tasks.start(self._compute(self.oracle, parsed), "flawed colouring")
        self.changed()

    async def _compute(self, oracle: OracleResult, parsed: tuple[str, str]) -> None:
        try:
            values = await in_thread(flawed_values, oracle, parsed[1])
        except Exception as error:  # shown in the legend title; the true colours stay usable
            self.failure = str(error)
            self.style.scale_title = f"{parsed[1]}: {error}"
            self.changed()
            return
        if oracle is self.oracle and parsed == self.active:
            self.values = values
            self.changed()

    @property
    def ready(self) -> bool:
        return self.active is not None and self.values is not None

    def fill(self, state_id: int) -> QColor | None:
        """The hook: this state's colour, grey while the picture is computed."""
        if self.active is None or self.oracle is None:
            return None
        if self.values is None or not 0 <= state_id < len(self.values):
            return colours.NEUTRAL_FILL
        true = float(self.oracle.states[state_id].value)
        return fill_for(self.active[0], self.values[state_id], true)

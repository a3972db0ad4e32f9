"""Colour the graph by what a flawed explainer believes: its V̂ (on the same scale as the true V)
or how far it is from the truth, |V̂ − V|, so a lecture can show where a flaw goes wrong.

The graph keeps one colour hook (``GraphStyle.fill_source``); this module owns the colours and
the hook. What is chosen and the flawed pictures' values are the Qt-free
``core.workspace.presentation.flaw_pictures.FlawColours`` (its picture computed on a worker
thread: ``myopic`` asks Storm); the graph view only forwards the user's choice here.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtGui import QColor

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.flaw_pictures import (
    VALUE,
    FlawColours,
    parse_choice,
    scale_words,
)
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views import colours
from explaincheck.gui.views.graph_items import GraphStyle


def fill_for(view: str, place: float | None, gap: float) -> QColor:
    """V̂ at its place on the viridis scale of V (None: ∞, in its grey); the difference on the
    yellow-to-red scale (0: agrees). Both come from ``FlawPicture`` (the property's own range
    and direction)."""
    if view == VALUE:
        return colours.INFINITE if place is None else colours.value_colour(place)
    return colours.danger_colour(gap)


class FlawColouring:
    """The graph's flaw colouring: sets the style's hook and repaints when the picture is in."""

    def __init__(self, style: GraphStyle, tasks: Tasks, changed: Callable[[], None]) -> None:
        self.style = style
        self.tasks = tasks
        self.changed = changed  # repaint the scene and legend
        self.state = FlawColours(offload=in_thread)
        self.state.changed.connect(self._picture_changed)

    @staticmethod
    def handles(kind: str) -> bool:
        return parse_choice(kind) is not None

    @property
    def ready(self) -> bool:
        return self.state.ready

    @property
    def failure(self) -> str:
        return self.state.failure

    def set_oracle(self, oracle: OracleResult | None) -> None:
        self._run(self.state.set_oracle(oracle))

    def clear(self) -> None:
        """Back to the true values (a plain colour choice)."""
        self.state.clear()
        self.style.fill_source = None
        self.style.scale_title = ""
        self.style.scale_ends = None

    def apply(self, kind: str) -> None:
        """Colour by ``kind`` (a flaw choice); states stay grey until the picture is ready."""
        work = self.state.choose(kind)
        if self.state.active is None:
            self.clear()
            return
        view = self.state.active[0]
        self.style.colour_by = "value" if view == VALUE else "danger"  # the legend's scale
        self._retitle()
        self.style.fill_source = self.fill
        self._run(work)
        self.changed()

    def _run(self, work: Coroutine[Any, Any, None] | None) -> None:
        if work is not None:
            self.tasks.start(work, "flawed colouring")

    def _retitle(self) -> None:
        """The legend's title and ends for the active view under the open model's property."""
        if self.state.active is None:
            return
        title, low, high = scale_words(
            self.state.active[0],
            self.state.scale_title,
            self.style.units,
            self.state.believes_other,
        )
        self.style.scale_title, self.style.scale_ends = title, (low, high)

    def _picture_changed(self) -> None:
        if self.state.values is None and self.state.failure:
            self.style.scale_title = self.state.failure
        else:
            self._retitle()  # a new model may have another property
        self.changed()

    def fill(self, state_id: int) -> QColor | None:
        """The hook: this state's colour, grey while the picture is computed."""
        active, oracle, picture = self.state.active, self.state.oracle, self.state.picture
        if active is None or oracle is None:
            return None
        if picture is None or not 0 <= state_id < len(picture.values):
            return colours.NEUTRAL_FILL
        return fill_for(active[0], picture.places[state_id], picture.gaps[state_id])

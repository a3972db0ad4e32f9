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
import math
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from explaincheck.core.oracle.flawed import flawed_oracle, parse_flaw
from explaincheck.core.oracle.property import MAX, REWARD
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.property_units import PropertyUnits
from explaincheck.core.taxonomy.value_scale import merit, position
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
    return flawed_picture(truth, spec).values


@dataclass(frozen=True)
class FlawPicture:
    """A flaw's V̂ per state, and where the graph draws it beside the truth, by state id.

    ``places``: V̂ on the true V's colour scale in [0, 1] (None: ∞ there): V̂ itself for a
    probability, its place in the property's own range for an expected reward (not clamped
    to 0..1 as a probability); a picture that believes another property (myopic and the others
    see the chance of reaching the target under an expected time) is placed by its ``merit``
    in the truth's direction. ``gaps``: |V̂ − V| as the distance of their merits, in [0, 1],
    so an expected reward's gap is a share of its range, read in its direction."""

    values: list[float]
    places: list[float | None]
    gaps: list[float]
    believes_other: bool = False  # its V̂ is of another property than the truth's


def flawed_picture(truth: OracleResult, spec: str) -> FlawPicture:
    """The flaw ``spec``'s picture of ``truth``'s model (worker thread: myopic asks Storm)."""
    picture = flawed_oracle(truth, parse_flaw(spec.removeprefix("flaw:")))
    values = [float(state.value) for state in picture.states]
    same = picture.prop.text == truth.prop.text
    maximising = truth.prop.direction == MAX
    places: list[float | None] = []
    for value in values:
        if same:
            places.append(
                None if truth.prop.kind == REWARD and math.isinf(value) else position(value, truth)
            )
        else:
            good = merit(value, picture)
            places.append(good if maximising else 1.0 - good)
    gaps = [
        abs(merit(value, picture) - merit(float(state.value), truth))
        for value, state in zip(values, truth.states, strict=True)
    ]
    return FlawPicture(values, places, gaps, not same)


def scale_words(
    view: str, title: str, units: PropertyUnits | None, believes_other: bool = False
) -> tuple[str, str, str]:
    """The legend's title and scale ends for a flaw's view: "0" to "1" for a probability;
    under an expected reward, its unit and direction and its own range (a picture that
    believes a chance of reaching the target is drawn in V's direction, its ends "P = …")."""
    if units is None or not units.is_reward:
        return title, "0", "1"
    if view != VALUE:
        return f"{title}: a share of V's range, in its direction", "0", "1"
    if believes_other:
        ends = ("P = 1", "P = 0") if not units.words.maximising else ("P = 0", "P = 1")
        target = units.words.target
        return f"{title}: its chance of reaching {target}, drawn as V ({units.direction})", *ends
    return f"{title}: {units.unit}, {units.direction}", units.low_text, units.high_text


class FlawColours:
    """What the graph's flaw colouring shows: the chosen (view, spec), and V̂ per state of that
    flaw on the open model once computed (``None`` meanwhile: the states stay grey)."""

    def __init__(self, offload: Callable[..., Awaitable[Any]] | None = None) -> None:
        self._offload = offload or asyncio.to_thread
        self.oracle: OracleResult | None = None
        self.active: tuple[str, str] | None = None
        self.values: list[float] | None = None  # V̂ of the active flaw on ``oracle``
        self.picture: FlawPicture | None = None  # and where the graph draws it
        self.failure = ""
        self.changed = Event("changed")  # (): repaint (values ready, or a failure said)

    @property
    def ready(self) -> bool:
        return self.active is not None and self.values is not None

    @property
    def believes_other(self) -> bool:
        """Whether the picture's V̂ is of another property than the truth's (a chance of
        reaching the target under an expected time)."""
        return self.picture is not None and self.picture.believes_other

    @property
    def scale_title(self) -> str:
        """The legend's title for the active choice ("" for none)."""
        if self.active is None:
            return ""
        view, spec = self.active
        return f"V̂(s) of {spec}" if view == VALUE else f"|V̂ − V| of {spec}"

    def set_oracle(self, oracle: OracleResult | None) -> Coroutine[Any, Any, None] | None:
        """A new model; the work to await for the active choice's picture, if any."""
        self.oracle, self.values, self.picture = oracle, None, None
        return self._needed()

    def clear(self) -> None:
        """Back to the true values (a plain colour choice)."""
        self.active, self.values, self.picture = None, None, None

    def choose(self, kind: str) -> Coroutine[Any, Any, None] | None:
        """Colour by ``kind`` (a flaw choice; anything else clears); the work to await for its
        picture, if it must be computed."""
        parsed = parse_choice(kind)
        if parsed is None:
            self.clear()
            return None
        if parsed != self.active:
            self.values, self.picture = None, None
        self.active = parsed
        return self._needed()

    def _needed(self) -> Coroutine[Any, Any, None] | None:
        if self.active is None or self.values is not None or self.oracle is None:
            return None
        return self._compute(self.oracle, self.active)

    async def _compute(self, oracle: OracleResult, parsed: tuple[str, str]) -> None:
        try:
            picture = await self._offload(flawed_picture, oracle, parsed[1])
        except Exception as error:  # said in the legend title; the true colours stay usable
            self.failure = f"{parsed[1]}: {error}"
            self.changed.emit()
            return
        if oracle is self.oracle and parsed == self.active:
            self.values, self.picture = picture.values, picture
            self.changed.emit()

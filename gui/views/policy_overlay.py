"""Draw a loaded (or LLM) policy π on the graph: its action per state under each disc, its
edges emphasised, and the states coloured by regret V*(s) − Q*(s, π(s)).

The graph keeps three small hooks in ``GraphStyle`` (``fill_source`` for the colour,
``caption_source`` for the line under a disc, ``edge_emphasis`` for the edges); this module owns
what π puts there, so the graph view only forwards the chain and the user's colour choice.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from PySide6.QtGui import QColor

from explaincheck.core.policy.types import PolicyChain
from explaincheck.gui.views import colours
from explaincheck.gui.views.graph_items import GraphStyle

REGRET = "policy-regret"  # the colour box's data for "regret of π"


class PolicyOverlay:
    """The graph's policy layer: set a chain, and colour by regret when chosen."""

    def __init__(self, style: GraphStyle, changed: Callable[[], None]) -> None:
        self.style = style
        self.changed = changed  # repaint nodes, edges and legend
        self.chain: PolicyChain | None = None
        self.colouring = False

    @staticmethod
    def handles(kind: str) -> bool:
        return kind == REGRET

    @property
    def largest_regret(self) -> float:
        """The largest finite regret: the scale's top (an infinite regret, under an expected
        reward π never finishes from there, is drawn at the top end)."""
        if self.chain is None:
            return 0.0
        finite = (s.regret for s in self.chain.states if math.isfinite(s.regret))
        return max(finite, default=0.0)

    @property
    def any_infinite(self) -> bool:
        return self.chain is not None and any(math.isinf(s.regret) for s in self.chain.states)

    def set_chain(self, chain: PolicyChain | None) -> None:
        """Show ``chain``'s choices (None: no policy, the hooks are removed)."""
        self.chain = chain
        if chain is None:
            self.style.caption_source = None
            self.style.edge_emphasis = None
            if self.colouring:
                self.clear()
        else:
            self.style.caption_source = self.caption
            self.style.edge_emphasis = self.emphasised
            if self.colouring:
                self.apply(REGRET)
        self.changed()

    def clear(self) -> None:
        self.colouring = False
        if self.style.fill_source == self.fill:
            self.style.fill_source = None
            self.style.scale_title = ""

    def apply(self, kind: str) -> None:
        self.colouring = True
        self.style.colour_by = "danger"  # the legend's yellow-to-red scale
        top = self.largest_regret
        infinite = ", ∞ at the top" if self.any_infinite else ""
        self.style.scale_title = f"regret of π ÷ {top:.3g}{infinite}"
        self.style.scale_ends = None  # "0" to "1"
        self.style.fill_source = self.fill

    def fill(self, state_id: int) -> QColor | None:
        if self.chain is None or not 0 <= state_id < len(self.chain.states):
            return None
        top = self.largest_regret
        regret = self.chain.state(state_id).regret
        if math.isinf(regret):
            return colours.danger_colour(1.0)
        return colours.danger_colour(regret / top if top > 0 else 0.0)

    def caption(self, state_id: int) -> str:
        """π(s) under the disc: "π: up" or "π: up:3/4,left:1/4"."""
        if self.chain is None or not 0 <= state_id < len(self.chain.states):
            return ""
        action = self.chain.state(state_id).action
        return f"π: {short_choice(action)}" if action else ""

    def emphasised(self, state_id: int, actions: dict[str, float]) -> bool:
        """Whether an edge from ``state_id`` belongs to an action π may take there."""
        if self.chain is None or not 0 <= state_id < len(self.chain.states):
            return False
        return any(a in actions for a in self.chain.state(state_id).action)


def short_choice(distribution: dict[str, Fraction]) -> str:
    """π(s) short enough to sit under a disc: "up", "uniform", "left .5 · down .5", "up .4 +2"."""
    if len(distribution) == 1:
        return next(iter(distribution))
    if len(set(distribution.values())) == 1 and len(distribution) > 2:
        return "uniform"
    ranked = sorted(distribution.items(), key=lambda kv: -kv[1])
    shown = " · ".join(f"{a} {float(p):.2g}".replace("0.", ".") for a, p in ranked[:2])
    return shown + (f" +{len(ranked) - 2}" if len(ranked) > 2 else "")

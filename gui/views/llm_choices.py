"""The answerers a view offers, as plain data handed in by the window (``gui/backend_choices``).

Views never import the backend registry: the window turns its table of backend kinds into these
small records, so a new backend shows up in every view without any view changing.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LlmChoice:
    """One complete spec a view lists, with its line of text."""

    spec: str  # e.g. "random", "local:gemma3-270m", "flaw:myopic:2"
    text: str  # "random — uniform guesses (baseline)"
    live: bool = False  # can be asked one question on demand
    baseline: bool = False  # a baseline or ceiling every model is compared with
    reference: bool = False  # a reference explainer with a known flaw
    preselected: bool = False  # ticked in a new campaign
    flaw_picture: bool = False  # its wrong picture can be shown beside the oracle (Teach)
    instant: bool = False  # computes its reply: asked on the spot, no LLM needed
    tip: str = ""  # why it cannot be used here ("" = it can)

    @property
    def enabled(self) -> bool:
        return not self.tip

    @property
    def model(self) -> bool:
        """An LLM under test (neither a baseline nor a reference)."""
        return not (self.baseline or self.reference)


@dataclass(frozen=True)
class LlmChoices:
    """Everything a view needs to know about answerers: what to list, and which spec prefixes
    can be asked live."""

    offered: tuple[LlmChoice, ...] = ()
    live_prefixes: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()  # every registered kind's prefix; empty: not told

    def registered(self, spec: str) -> bool:
        """Whether a spec's kind is registered now (a remembered spec of an uninstalled plugin
        or a removed kind is not); with no prefixes told, every spec is taken as registered."""
        return not self.prefixes or spec.strip().partition(":")[0].strip() in self.prefixes

    def can_ask_live(self, spec: str) -> bool:
        """Whether a spec (say, one stored in a results file) can be asked a question now."""
        return spec.partition(":")[0] in self.live_prefixes

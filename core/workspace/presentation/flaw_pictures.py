"""What the graph's "Colour" box offers of the flawed explainers, and their pictures' values,
without Qt (issue 36: the graph's view used to compute the flawed oracles itself).

A choice is a view (V̂, or |V̂ − V|) of a flaw spec; ``flawed_values`` makes the flaw's
wrong-but-exact picture (``core.oracle.flawed.flawed_oracle``; ``myopic`` asks Storm), so it
runs on a worker thread. The colours themselves are the GUI's (``gui/views/flaw_colouring.py``).
"""

from __future__ import annotations

from explaincheck.core.oracle.flawed import flawed_oracle, parse_flaw
from explaincheck.core.oracle.types import OracleResult

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

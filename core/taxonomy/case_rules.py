"""Rules that keep a selected case a test of reasoning (docs/method.md §4, deviations 8–12).

- **Decided states only.** A preference case needs two offered actions of different value: where
  every action ties, any answer passes (best, worst and ranking alike).
- **Do-nothing actions** (``StateFacts.do_nothing``: every outcome is the state itself) have
  Q(s, a) = V(s) and are always among the best, so an explainer that always says "quit" would
  pass every best-action case. Preference questions leave them out of the listed actions, the
  answer schema and the expected answer, unless a campaign keeps them (``--keep-do-nothing``).
- **Reading cases.** A pair or subset holding an absorbing failure (a hole, an eaten goat: the
  description says what happened) or an unsafe-labelled state, a which-bottleneck decoy that is
  an absorbing failure, a satisfy state that is one: the answer can be read off the words. Their
  δ is capped at ½ (``READING_DELTA``, the rule of deviation 3, which gave ½ to positive subsets
  whose δ was 1), so prioritised selection prefers live states; they are marked ``reading``.
- **Deciding difference** (``gap``): the value difference that decides a case (|ΔV|, |ΔD|, the
  smallest gap of a ranking, the margin of the best or worst group). ``--min-gap G`` leaves out
  cases below G; reports count those below ``SMALL_GAP``.
- **Balance** of the yes/no categories (``--balance on|off``).
- **Satisfy's δ** (``--delta band|paper``): a state a constant ½ passes is no case, and δ is
  measured from the edge of that band (``satisfy.Satisfy.ruled``), unless the paper's formula
  is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explaincheck.core.oracle.types import StateFacts
    from explaincheck.core.taxonomy.cases import Candidate

READING_DELTA = 0.5  # the most δ a reading case can have
# Satisfy's δ (``SelectionRules.delta``): measured from the tolerance band around ½ (default),
# or the paper's 1 − 2|V − ½|, which prioritises the states a constant ½ passes (method.md §4).
BAND, PAPER = "band", "paper"
DELTA_CHOICES = (BAND, PAPER)
DEFAULT_BAND = 0.05  # the default satisfy tolerance: a ½ passes every state within it
SMALL_GAP = 0.01  # deciding differences below this are counted per cell in reports


@dataclass(frozen=True)
class SelectionRules:
    """How candidates are filtered and selected beyond δ and the budget."""

    keep_do_nothing: bool = False  # offer do-nothing actions in preference questions
    min_gap: float = 0.0  # leave out cases whose deciding difference is below this (0: none)
    balance: bool = True  # yes/no categories: as many yes- as no-cases (the paper's text)
    delta: str = BAND  # satisfy's δ: BAND (from the tolerance band around ½) or PAPER
    band: float = DEFAULT_BAND  # half-width of that band (the campaign's satisfy tolerance)


DEFAULT_RULES = SelectionRules()


def offered_actions(state: StateFacts, keep_do_nothing: bool = False) -> tuple[str, ...]:
    """The actions a preference question lists and accepts, in model order."""
    if keep_do_nothing:
        return state.actions
    idle = set(state.do_nothing)
    return tuple(a for a in state.actions if a not in idle)


def offered_order(state: StateFacts, keep_do_nothing: bool = False) -> tuple[tuple[str, ...], ...]:
    """``state.action_order`` restricted to the offered actions (empty groups dropped)."""
    if keep_do_nothing:
        return state.action_order
    idle = set(state.do_nothing)
    groups = (tuple(a for a in group if a not in idle) for group in state.action_order)
    return tuple(group for group in groups if group)


def order_gaps(state: StateFacts, order: Sequence[Sequence[str]]) -> list[float]:
    """Differences of Q between adjacent tie groups of ``order`` (best first), as magnitudes:
    a minimising property orders its Q upwards; a gap to an infinite Q is infinite."""
    values = [state.q[group[0]] for group in order]
    return [_distance(values[i], values[i + 1]) for i in range(len(values) - 1)]


def _distance(a: float, b: float) -> float:
    if a == b:
        return 0.0  # two infinite values tie
    return abs(a - b)


def scaled(gap: float, width: float) -> float:
    """A difference as a share of the value range ``width`` (1 for a probability), at most 1."""
    return min(gap / width, 1.0) if width > 0 else 0.0


def is_absorbing(state: StateFacts) -> bool:
    """Whether every choice of ``state`` leads back to itself (nothing can happen any more)."""
    return all(set(targets) <= {state.id} for targets in state.successors.values())


def is_visible_dead_end(state: StateFacts) -> bool:
    """A dead end that is an absorbing failure: its description shows that the run is over."""
    return state.dead_end and is_absorbing(state)


def reads_as_failure(state: StateFacts) -> bool:
    """A state whose words give a failure away: an absorbing failure, or unsafe-labelled (the
    built-in wordings describe what happened there; the generic one shows the label)."""
    return state.is_unsafe or is_visible_dead_end(state)


def is_live_dead_end(state: StateFacts) -> bool:
    """A dead end whose words do not give it away: V = 0, yet it is neither labelled unsafe nor
    absorbing (the agent can still act), so only reasoning finds it."""
    return state.dead_end and not reads_as_failure(state)


def capped(delta: float, reading: bool) -> float:
    """δ of a case, at most ``READING_DELTA`` when it is a reading case."""
    return min(delta, READING_DELTA) if reading else delta


def degenerate_reason(candidates: Sequence[Candidate]) -> str | None:
    """Why a category measures nothing on a model although it has candidates, or None:
    every candidate has δ = 0, or every candidate is a reading case (or both)."""
    if not candidates:
        return None
    every = "the only candidate" if len(candidates) == 1 else f"all {len(candidates):,} candidates"
    found = []
    if all(c.delta == 0 for c in candidates):
        found.append("δ = 0")
    if all(c.reading for c in candidates):
        found.append("a failure state the words give away (reading cases)")
    return (
        f"{every} {'has' if len(candidates) == 1 else 'have'} {' and '.join(found)}"
        if found
        else None
    )

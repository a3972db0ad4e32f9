"""Contract of the query taxonomy: test cases, prompts, grades and the ``Category`` base class.

Each of the ten categories (DESIGN.md ids) is one module in this package that subclasses
``Category`` and is registered by id in ``registry.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Dimensions as in the paper (section 4) and DESIGN.md.
STATE = "state"
PREFERENCE = "preference"
SCOPE = "scope"
MODE = "mode"

# Verdicts (DESIGN.md). ``error`` is given by the runner when no reply came, never by grading.
PASS, FAIL, INVALID, ERROR = "pass", "fail", "invalid", "error"
PRIORITIZED, RANDOM = "prioritized", "random"


@dataclass(frozen=True)
class Candidate:
    """A possible test case before selection: the state(s) it concerns and its δ."""

    category: str
    states: tuple[int, ...]  # one state, an unordered pair (in presentation order) or a subset
    delta: float
    positive: bool | None = None  # class of a binary category (True = yes-answer), else None


@dataclass(frozen=True)
class TestCase:
    """A selected candidate: what the runner executes (once per LLM and repeat)."""

    category: str
    states: tuple[int, ...]
    delta: float
    selection: str  # PRIORITIZED or RANDOM
    index: int  # position within (category, selection), 0-based
    positive: bool | None = None

    @property
    def key(self) -> str:
        """Stable identity of the case within one plan (used for resume and de-duplication)."""
        return f"{self.category}/{self.selection}/{self.index}/{'-'.join(map(str, self.states))}"


@dataclass(frozen=True)
class Prompt:
    """The rendered question and the JSON schema its answer must follow."""

    text: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class GradingSettings:
    """How answers are graded. Satisfy: ``absolute`` (|p - V| <= tolerance) or ``half``."""

    satisfy_rule: str = "absolute"
    satisfy_tolerance: float = 0.05


@dataclass(frozen=True)
class Grade:
    """The verdict on one reply; never raised, always returned."""

    verdict: str  # PASS, FAIL or INVALID
    reason: str
    answer: Any  # the parsed answer (JSON-friendly), or None when invalid
    expected: Any  # the oracle's expected answer (JSON-friendly)
    abs_error: float | None = None  # satisfy only: |p - V(s)|

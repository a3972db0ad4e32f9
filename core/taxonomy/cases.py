"""What a question is made of, from candidate to prompt: ``Candidate`` (a possible test case and
its δ), ``TestCase`` (a selected one, the runner's unit), ``Shot`` (a solved example shown before
a question) and ``Prompt`` (the rendered text and its answer schema).

Plain data with no behaviour of the taxonomy's: ``base.py`` re-exports them for categories and
plugins, and the modules ``base.py`` needs (``case_rules``, ``probes``) take them from here, so
none of them imports ``base.py`` back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# How a case key marks its wording and its metamorphic variant (read back by the store).
WORDING_MARK, VARIANT_MARK = "~w", "~m:"


@dataclass(frozen=True)
class Candidate:
    """A possible test case before selection: the state(s) it concerns and its δ."""

    category: str
    states: tuple[int, ...]  # one state, an unordered pair (in presentation order) or a subset
    delta: float
    positive: bool | None = None  # class of a binary category (True = yes-answer), else None
    reading: bool = False  # answered by reading the words (``case_rules``): δ capped at ½
    gap: float | None = None  # the deciding difference (|ΔV|, ranking gap, ...), if any


@dataclass(frozen=True)
class TestCase:
    """A selected candidate: what the runner executes (once per LLM and repeat)."""

    __test__ = False  # not a pytest test class despite the name

    category: str
    states: tuple[int, ...]
    delta: float
    selection: str  # PRIORITIZED or RANDOM
    index: int  # position within (category, selection), 0-based
    positive: bool | None = None
    wording: int = 0  # which phrasing of the question (``Category.phrase``); 0 = the original
    variant: str = ""  # metamorphic transformation applied (``metamorphic``); "" = none
    origin: str = ""  # a variant's family: the key of the case it was transformed from
    reading: bool = False  # a reading case (``case_rules``), marked in the store
    gap: float | None = None  # the deciding difference, stored for reports
    keep_do_nothing: bool = False  # preference cases: do-nothing actions offered too

    @property
    def family(self) -> str:
        """Key of the untransformed case: what a metamorphic variant is compared with."""
        if self.origin:
            return self.origin
        base = f"{self.category}/{self.selection}/{self.index}/{'-'.join(map(str, self.states))}"
        return f"{base}{WORDING_MARK}{self.wording}" if self.wording else base

    @property
    def key(self) -> str:
        """Stable identity of the case within one plan (used for resume and de-duplication).
        Wording 0 without a variant keeps the key of earlier versions, so old databases resume."""
        return f"{self.family}{VARIANT_MARK}{self.variant}" if self.variant else self.family


@dataclass(frozen=True)
class Shot:
    """A solved training case put in front of a question (``run --shots K``): what the prompt
    shows of it is in the prompt's text; this is the same shot as data, for answerers that read
    structure (the ``learner`` reference explainer) and for reports."""

    case_key: str
    category: str
    states: tuple[int, ...]
    delta: float
    reply: str  # the oracle's answer as the reply schema's JSON text
    rationale: str = ""  # the oracle's values behind it (``--shots-explain``), or ""


@dataclass(frozen=True)
class Prompt:
    """The rendered question and the JSON schema its answer must follow; ``shots`` are the
    solved examples its text holds before the question (none in a campaign without shots)."""

    text: str
    schema: dict[str, Any]
    shots: tuple[Shot, ...] = ()

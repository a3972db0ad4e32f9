"""What the Results tab's filter bar asks of a row, as one value: a column equal to a chosen
value (environment, verdict, category, LLM, selection), "Failures only", the text search, and
"Flaky only" (which applies to the grouped repeats). Qt-free, so the rule is tested without a
table and the table's proxy only asks ``accepts``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from explaincheck.core.workspace.presentation.results.rows import Row, states_text
from explaincheck.core.workspace.presentation.results.rows import field as value_of

# (row key, title) of the filter bar's choices, in the bar's order
FILTERS = (
    ("environment", "Environment"),
    ("verdict", "Verdict"),
    ("category", "Category"),
    ("llm", "LLM"),
    ("selection", "Selection"),
)
FILTER_KEYS = tuple(key for key, _ in FILTERS)
NOT_PASSED = ("fail", "invalid")  # "Failures only"; uncertain and error are not failures
SEARCHED = ("prompt", "reply", "reason", "thinking", "category", "llm", "environment")


@dataclass(frozen=True)
class ResultsFilters:
    """The filter bar's state; ``""`` in ``equals`` (or no entry) is "all"."""

    equals: Mapping[str, str] = field(default_factory=dict)
    failures_only: bool = False
    text: str = ""  # lower case, stripped: a row shows when any searched field contains it
    flaky_only: bool = False  # the grouped repeats: only the flaky cases

    def with_equal(self, key: str, value: str) -> ResultsFilters:
        if key not in FILTER_KEYS:
            raise KeyError(f"no filter {key!r}; the filters are {', '.join(FILTER_KEYS)}")
        return replace(self, equals={**self.equals, key: value})

    def with_text(self, text: str) -> ResultsFilters:
        return replace(self, text=text.strip().lower())

    def accepts(self, row: Row) -> bool:
        """Whether the table shows ``row`` (``flaky_only`` is for groups: ``accepts_group``)."""
        for key, wanted in self.equals.items():
            if wanted and str(value_of(row, key)) != wanted:
                return False
        if self.failures_only and value_of(row, "verdict") not in NOT_PASSED:
            return False
        if self.text:
            haystack = [str(value_of(row, k) or "") for k in SEARCHED]
            haystack.append(states_text(value_of(row, "states")))
            if not any(self.text in h.lower() for h in haystack):
                return False
        return True

    @property
    def active(self) -> bool:
        """Whether any filter hides rows."""
        return bool(any(self.equals.values()) or self.failures_only or self.text)


def filter_choices(rows: Iterable[Row], key: str) -> list[str]:
    """The values a filter offers: every value of ``key`` among the rows, sorted (an empty one,
    a field a hand-made row left out, is no choice)."""
    return sorted({str(v) for r in rows if (v := value_of(r, key)) is not None and v != ""})


def not_passed(rows: Iterable[Row]) -> int:
    """How many rows failed or were invalid (the count's "not passed")."""
    return sum(1 for r in rows if value_of(r, "verdict") in NOT_PASSED)


def count_text(shown: int, total: int, failed: int) -> str:
    """The line beside the search: ``4 of 12 shown · 3 not passed``."""
    return f"{shown} of {total} shown · {failed} not passed"

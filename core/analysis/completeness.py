"""Is the campaign in a results file finished? Planned executions against graded ones.

Why a gate needs it: ``compare`` pairs the cases both sides hold and leaves the rest out, so a new
campaign still being written (4 of 38 executions) compared with a finished base gave "too few
pairs", exit 0: a CI gate run before the campaign ended passed. A side is **unfinished** while
any of its campaigns has fewer graded executions (``error`` rows are no answer) than it planned.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explaincheck.core.store import Store


@dataclass(frozen=True)
class Completeness:
    """Planned and stored executions of every campaign of one results file."""

    planned: int
    stored: int  # rows, errors included
    graded: int  # rows with a verdict (not ``error``)
    campaigns: int

    @property
    def errors(self) -> int:
        return self.stored - self.graded

    @property
    def finished(self) -> bool:
        """Every planned execution graded (a file that plans nothing is taken as it is)."""
        return self.graded >= self.planned

    def words(self) -> str:
        """``4 of 38 planned executions graded (2 errors)``."""
        errors = f" ({self.errors} error{'s' if self.errors != 1 else ''})" if self.errors else ""
        return f"{self.graded} of {self.planned} planned executions graded{errors}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "planned": self.planned,
            "stored": self.stored,
            "graded": self.graded,
            "errors": self.errors,
            "finished": self.finished,
        }


def completeness(db: str | Path) -> Completeness:
    """Planned against stored over every campaign of ``db`` (read-only, counted in SQL)."""
    with Store.open(db, readonly=True) as store:
        campaigns = store.campaigns()
        counts = store.counts_by_campaign()
    found = [counts.get(c.id, (0, 0)) for c in campaigns]
    return Completeness(
        planned=sum(max(c.planned, 0) for c in campaigns if isinstance(c.planned, int)),
        stored=sum(stored for stored, _ in found),
        graded=sum(graded for _, graded in found),
        campaigns=len(campaigns),
    )

"""The Report tab without Qt: the report of the shown rows, computed off the GUI thread, the
"leave reading cases out" option, and the export of the whole report (issue 36: the view used
to call ``build_report`` itself).

Only the parts the tab shows (``SHOWN``) are computed for the tab, a tenth of the whole; an
export computes the whole report, as ``explaincheck report`` does, and writes PNG/SVG figures,
CSV tables or one self-contained HTML file through the same core functions the CLI uses. Each
``refresh`` supersedes the ones before it: a slower, older computation never replaces a newer
report. Events (``core.workspace.events.Event``), emitted on the caller's thread:
``computing()``, ``ready(report)`` (None: no rows) and ``failed(message)``.

A file without a campaign (a self-check, an LLM asked for its policy) has no Table 1: its
report is the summary alone, and ``held`` tells the tab to show the file as what it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explaincheck.core.analysis.report import build_report, figure_bytes, write_report
from explaincheck.core.analysis.report_parts import Report
from explaincheck.core.atomic_files import write_bytes_atomically
from explaincheck.core.campaign.selfcheck import EXPLAIN_SELECTIONS, SAY_SELECTION
from explaincheck.core.policy.stored import POLICY_SELECTION
from explaincheck.core.store import Store, StoreError, rows_frame
from explaincheck.core.workspace.events import Event

# The figures and tables the tab shows: the report computes these alone for the tab.
FIGURES = ("table1_heatmap", "difficulty")
TABLES = (
    "rq1_counts",
    "rq1_wilcoxon",
    "rq2_models",
    "table1",
    "table1_intervals",
    "reading_share",
    "small_gap",
)
SHOWN = frozenset({*FIGURES, *TABLES})
EXPORT_KINDS = ("png", "svg", "csv", "html")

Offload = Callable[..., Awaitable[Any]]  # runs a blocking function off the caller's thread

COMPUTING = "Computing…"  # where the figures will be, while they are computed
NO_RESULTS = "No results yet: run a campaign or open a results file."
SELFCHECK_SELECTIONS = frozenset({SAY_SELECTION, *EXPLAIN_SELECTIONS.values()})


@dataclass(frozen=True)
class Held:
    """What a file's rows hold: the rows of a campaign (prioritised or random cases: Table 1,
    the RQs), a self-check's and ``explaincheck policy``'s act questions."""

    campaign: int = 0
    selfcheck: int = 0
    policy: int = 0

    @property
    def campaign_free(self) -> bool:
        """Rows that no Table 1 scores: a self-check or LLM-policy file is shown as one."""
        return self.campaign == 0 and (self.selfcheck + self.policy) > 0


def held(rows: Iterable[Mapping[str, Any]]) -> Held:
    """Count the rows by what they belong to (a selection of no self-check and no policy,
    prioritised, random or another's, counts as a campaign's)."""
    campaign = selfcheck = policy = 0
    for row in rows:
        selection = row.get("selection")
        if selection in SELFCHECK_SELECTIONS:
            selfcheck += 1
        elif selection == POLICY_SELECTION:
            policy += 1
        else:
            campaign += 1
    return Held(campaign, selfcheck, policy)


def campaign_free_text(found: Held) -> str:
    """The line shown instead of Table 1 and the RQs for a file without a campaign."""
    what = (
        "a self-check (explaincheck selfcheck)"
        if found.selfcheck
        else "an LLM asked for its policy (explaincheck policy)"
    )
    return (
        f"This file holds {what}, no campaign: Table 1 and the research questions need"
        " prioritised or random cases. Its figures are in the box below, once its model is open."
    )


def file_campaigns(db_path: str | None) -> list:
    """The campaign rows of a results file ([] without one, or when it cannot be read: what is
    made of the rows alone still works)."""
    if not db_path or not Path(db_path).is_file():
        return []
    try:
        with Store.open(db_path, readonly=True) as store:
            return store.campaigns()
    except (StoreError, OSError):
        return []


def build(
    rows: list[dict[str, Any]],
    db_path: str | None = None,
    exclude_reading: bool = False,
    only: frozenset[str] | None = SHOWN,
) -> Report:
    """rows -> Report, with the campaign facts and LLM settings of the results file the rows
    came from, as ``explaincheck report --db`` builds it, but only the parts in ``only``
    (None: the whole report); ``exclude_reading``: ``report --exclude-reading``."""
    return build_report(
        rows_frame(rows),
        campaigns=file_campaigns(db_path),
        exclude_reading=exclude_reading,
        only=only,
    )


def write(report: Report, kind: str, folder: Path) -> list[Path]:
    """Write ``report`` as ``kind`` (png, svg: every figure; csv, html: ``write_report``)."""
    folder.mkdir(parents=True, exist_ok=True)
    if kind in ("png", "svg"):
        written = []
        for key, figure in report.figures.items():
            path = folder / f"{key}.{kind}"
            write_bytes_atomically(path, figure_bytes(figure, kind))
            written.append(path)
        return written
    return list(write_report(report, folder, kind))


def export_all(
    rows: list[dict[str, Any]], db_path: str | None, exclude_reading: bool, kind: str, folder: Path
) -> list[Path]:
    """The whole report of the rows, written (its figures its own, not the tab's)."""
    return write(build(rows, db_path, exclude_reading, only=None), kind, folder)


def export_summary(written: list[Path], folder: str | Path) -> str:
    """What an export wrote and where (every file, the figures an HTML report needs too)."""
    if not written:
        return f"Nothing was exported to {folder}."
    names = ", ".join(p.name for p in written[:6]) + (" …" if len(written) > 6 else "")
    noun = "file" if len(written) == 1 else "files"
    return f"Exported {len(written)} {noun} to {folder}: {names}"


class ReportWorkspace:
    """The report the tab shows, and the computations behind it."""

    def __init__(self, offload: Offload | None = None) -> None:
        self._offload: Offload = offload or asyncio.to_thread
        self.exclude_reading = False
        self.report: Report | None = None
        self.held = Held()  # what the rows of the report shown (or being computed) hold
        self.computing = Event("computing")  # (): a report is being computed
        self.ready = Event("ready")  # (Report | None): the report to show; None without rows
        self.failed = Event("failed")  # (str): why the report could not be computed
        self._generation = 0

    async def refresh(self, rows: list[dict[str, Any]], db_path: str | None) -> Report | None:
        """Compute the tab's parts of the rows' report; emit ``ready`` unless a later refresh
        started meanwhile (then the result is dropped and None returned)."""
        self._generation += 1
        generation = self._generation
        self.held = held(rows)
        if not rows:
            self.report = None
            self.ready.emit(None)
            return None
        self.computing.emit()
        # a file without a campaign: its summary alone (no Table 1 of no cases, issue 50)
        only = frozenset() if self.held.campaign_free else SHOWN
        try:
            report = await self._offload(build, list(rows), db_path, self.exclude_reading, only)
        except Exception as error:
            if generation == self._generation:
                self.failed.emit(f"The report could not be computed: {error}")
            return None
        if generation != self._generation:
            return None
        self.report = report
        self.ready.emit(report)
        return report

    async def export(
        self, rows: list[dict[str, Any]], db_path: str | None, kind: str, folder: str | Path
    ) -> list[Path]:
        """Write the whole report of ``rows`` as ``kind`` into ``folder`` (nothing before the
        tab has a report)."""
        if self.report is None:
            return []
        return await self._offload(
            export_all, list(rows), db_path, self.exclude_reading, kind, Path(folder)
        )

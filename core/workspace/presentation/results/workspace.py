"""The Results tab without Qt (issue 36): the executions shown, as ``StoredExecution``s, where
they came from, the filters, the chosen case, the grouped repeats, and the computations the tab
starts (reading a file, re-grading it).

Rows come from a results file (read off the caller's thread through ``offload``) or one by one
from a running campaign (``append``: the runner's ``ExecutionRecord``s, joined as
``rows.execution_of`` makes them). The window's Report, Teach and side-by-side readers take the
rows as ``results --json`` dicts (``row_dicts``). Events (``core.workspace.events.Event``) are
emitted on the caller's thread:

- ``reset()``: the rows were replaced (a file read, cleared, re-graded);
- ``added(first, count)``: rows were appended at ``first``;
- ``filtered(filters)``: the filters changed;
- ``chosen(execution)``: the case shown in full changed (None: no case).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explaincheck.core.store.records import ExecutionRecord, StoredExecution
from explaincheck.core.workspace.events import Event
from explaincheck.core.workspace.presentation.results.filters import (
    NOT_PASSED,
    ResultsFilters,
    count_text,
    filter_choices,
)
from explaincheck.core.workspace.presentation.results.repeats import RepeatGroup, group_repeats
from explaincheck.core.workspace.presentation.results.rows import (
    execution_of,
    read_executions,
    row_dict,
)

if TYPE_CHECKING:
    from explaincheck.core.campaign.regrade import RegradeSummary

Offload = Callable[..., Awaitable[Any]]  # runs a blocking function off the caller's thread


def regrade_file(db_path: str, satisfy_rule: str, satisfy_tolerance: float) -> RegradeSummary:
    """Grade a file's stored replies again under the satisfy rule (blocking; no LLM asked)."""
    from explaincheck.core.campaign.regrade import regrade
    from explaincheck.core.taxonomy.base import GradingSettings

    return regrade(db_path, GradingSettings(satisfy_rule, satisfy_tolerance))


class ResultsWorkspace:
    """The executions the Results tab shows, and what it does with them."""

    def __init__(self, offload: Offload | None = None) -> None:
        self._offload: Offload = offload or asyncio.to_thread
        self.executions: list[StoredExecution] = []
        self.db_path: str | None = None
        self.filters = ResultsFilters()
        self.chosen_case: StoredExecution | None = None
        self.shown_count = 0  # rows the filters let through
        self.failed_count = 0  # rows that did not pass (fail, invalid), filtered or not
        self._dicts: list[dict[str, Any]] | None = None  # row_dicts, made on first need
        self.reset = Event("reset")
        self.added = Event("added")
        self.filtered = Event("filtered")
        self.chosen = Event("chosen")

    # -- the rows ----------------------------------------------------------------------------
    async def load(self, db_path: str) -> None:
        """Replace the rows by a results file's (read off the caller's thread). An older file
        is read through a migrated copy and never written."""
        if not Path(db_path).exists():
            raise FileNotFoundError(f"no results database at {db_path}")
        executions = await self._offload(read_executions, db_path)
        self._replace(executions, db_path)

    async def regrade(self, satisfy_rule: str, satisfy_tolerance: float) -> RegradeSummary:
        """Grade the open file's stored replies again (off the caller's thread), then read it
        again so every reader shows the new verdicts."""
        if self.db_path is None:
            raise FileNotFoundError("open a results database first")
        db_path = self.db_path
        summary = await self._offload(regrade_file, db_path, satisfy_rule, satisfy_tolerance)
        await self.load(db_path)
        return summary

    def clear(self, db_path: str | None = None) -> None:
        """No rows (a new campaign into ``db_path``, a file not made yet)."""
        self._replace([], db_path)

    def append(self, rows: Iterable[ExecutionRecord | Mapping[str, Any]]) -> None:
        """Rows arriving live (the runner's records; dict rows are taken too)."""
        new = [execution_of(row) for row in rows]
        if not new:
            return
        first = len(self.executions)
        self.executions.extend(new)
        if self._dicts is not None:
            self._dicts.extend(row_dict(e) for e in new)
        self.shown_count += sum(1 for e in new if self.filters.accepts(e))
        self.failed_count += sum(1 for e in new if e.verdict in NOT_PASSED)
        self.added.emit(first, len(new))

    def _replace(self, executions: list[StoredExecution], db_path: str | None) -> None:
        self.executions = executions
        self.db_path = db_path
        self._dicts = None
        self.failed_count = sum(1 for e in executions if e.verdict in NOT_PASSED)
        self.shown_count = sum(1 for e in executions if self.filters.accepts(e))
        self.reset.emit()
        if self.chosen_case is not None:
            self.choose(self._same_case(self.chosen_case))

    def _same_case(self, execution: StoredExecution) -> StoredExecution | None:
        """The chosen case among the new rows (a re-graded file: the same row id; a live row
        read back: the same execution key and LLM), else None."""
        if execution.id:
            return next((e for e in self.executions if e.id == execution.id), None)
        if not execution.exec_key:
            return None
        same = (execution.exec_key, execution.llm)
        return next((e for e in self.executions if (e.exec_key, e.llm) == same), None)

    def row_dicts(self) -> list[dict[str, Any]]:
        """The rows as ``results --json`` dicts, for the readers that build tables from them
        (the Report, Teach, the side-by-side pairs, the measured rates); made once per reset,
        extended by ``append``. Read them, never change them."""
        if self._dicts is None:
            self._dicts = [row_dict(e) for e in self.executions]
        return self._dicts

    def llms(self) -> list[str]:
        return sorted({e.llm for e in self.executions})

    def environments(self) -> list[str]:
        return sorted({e.environment for e in self.executions})

    # -- the filters -------------------------------------------------------------------------
    def set_filters(self, filters: ResultsFilters) -> None:
        if filters == self.filters:
            return
        self.filters = filters
        self.shown_count = sum(1 for e in self.executions if filters.accepts(e))
        self.filtered.emit(filters)

    def set_equal(self, key: str, value: str) -> None:
        """One column's filter (``""``: all)."""
        self.set_filters(self.filters.with_equal(key, value))

    def set_failures_only(self, on: bool) -> None:
        self.set_filters(replace(self.filters, failures_only=on))

    def set_text(self, text: str) -> None:
        self.set_filters(self.filters.with_text(text))

    def set_flaky_only(self, on: bool) -> None:
        self.set_filters(replace(self.filters, flaky_only=on))

    def choices(self, key: str) -> list[str]:
        """The values the ``key`` filter offers over all rows."""
        return filter_choices(self.executions, key)

    def accepts(self, index: int) -> bool:
        """Whether the filters show the row at ``index`` (the table's proxy asks this)."""
        return self.filters.accepts(self.executions[index])

    def shown(self) -> list[StoredExecution]:
        """The rows the filters show, in stored order."""
        return [e for e in self.executions if self.filters.accepts(e)]

    def groups(self, shown: Iterable[StoredExecution] | None = None) -> list[RepeatGroup]:
        """The shown rows' repeats, one group per case (only the flaky ones with
        ``flaky_only``); ``shown`` when the caller has the shown rows in its own order."""
        found = group_repeats(self.shown() if shown is None else shown)
        if self.filters.flaky_only:
            found = [g for g in found if g.flaky]
        return found

    def count_text(self) -> str:
        """``N of M shown · K not passed``."""
        return count_text(self.shown_count, len(self.executions), self.failed_count)

    # -- the chosen case ---------------------------------------------------------------------
    def same_everywhere(self, keys: Iterable[str]) -> set[str]:
        """The fields among ``keys`` that hold one value in every row (the table leaves their
        columns out: the filter bar names the value), none without rows."""
        if not self.executions:
            return set()
        first = self.executions[0]
        return {
            key
            for key in keys
            if all(getattr(e, key) == getattr(first, key) for e in self.executions)
        }

    def choose(self, execution: StoredExecution | None) -> None:
        """Show ``execution`` in full (None: none); ``chosen`` fires on every choice, a repeat
        of the same one too, so a listener shows the row again (e.g. with a new oracle)."""
        self.chosen_case = execution
        self.chosen.emit(execution)

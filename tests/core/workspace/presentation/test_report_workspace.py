"""ReportWorkspace: the Report tab's computations without Qt, on a real results file."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from explaincheck.core.store import Store
from explaincheck.core.workspace.presentation.report import (
    FIGURES,
    TABLES,
    ReportWorkspace,
    export_summary,
)


@pytest.fixture(scope="module")
def rows_and_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("report") / "results.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "random", "--llm", "oracle", "--budget", "2"]
    args += ["--categories", "satisfy,best_action", "--db", str(db)]
    code = f"from explaincheck.core.cli.main import main; raise SystemExit(main({args!r}))"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    with Store.open(db, readonly=True) as store:
        return store.executions(), str(db)


def test_refresh_computes_the_shown_parts_and_says_so(rows_and_db):
    rows, db = rows_and_db
    workspace = ReportWorkspace()
    heard: list[object] = []
    workspace.computing.connect(lambda: heard.append("computing"))
    workspace.ready.connect(heard.append)
    report = asyncio.run(workspace.refresh(rows, db))
    assert heard == ["computing", report] and workspace.report is report
    assert set(report.figures) == set(FIGURES)
    assert {section.key for section in report.sections} <= set(TABLES)
    assert "2 LLMs" in report.summary or "oracle" in report.summary


def test_no_rows_is_an_empty_report_and_no_computation():
    workspace = ReportWorkspace()
    heard: list[object] = []
    workspace.computing.connect(lambda: heard.append("computing"))
    workspace.ready.connect(heard.append)
    assert asyncio.run(workspace.refresh([], None)) is None
    assert heard == [None]


def test_a_later_refresh_wins_over_a_slower_earlier_one(rows_and_db):
    rows, db = rows_and_db
    gate = asyncio.Event()

    async def offload(function, *args):
        if args[0] == rows:  # the first (full) refresh waits until the second one is done
            await gate.wait()
        return function(*args)

    workspace = ReportWorkspace(offload=offload)
    shown: list[object] = []
    workspace.ready.connect(shown.append)

    async def both():
        first = asyncio.ensure_future(workspace.refresh(rows, db))
        await asyncio.sleep(0)
        second = await workspace.refresh(rows[:2], db)
        gate.set()
        return await first, second

    first, second = asyncio.run(both())
    assert first is None and second is not None and shown == [second]
    assert workspace.report is second


def test_export_writes_the_whole_report(rows_and_db, tmp_path):
    rows, db = rows_and_db
    workspace = ReportWorkspace()
    assert asyncio.run(workspace.export(rows, db, "csv", tmp_path)) == []  # nothing shown yet
    asyncio.run(workspace.refresh(rows, db))
    written = asyncio.run(workspace.export(rows, db, "csv", tmp_path / "out"))
    assert written and all(path.is_file() for path in written)
    assert {"campaign_facts.csv", "llm_settings.csv"} <= {path.name for path in written}
    assert export_summary(written, tmp_path).startswith(f"Exported {len(written)} files")

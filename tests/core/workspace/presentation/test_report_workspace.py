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


def test_a_file_without_a_campaign_is_its_summary_alone():
    """A self-check's or an LLM policy's rows score no Table 1: the tab computes their summary
    and shows the file as what it is (issue 50: "Scores per category (none)", a heatmap of no
    numbers and an empty Table 1 above the self-check)."""
    from explaincheck.core.workspace.presentation.report import campaign_free_text, held

    def row(selection: str) -> dict:
        return {"selection": selection, "environment": "frozen_lake", "llm": "noisy:0.3",
                "category": "best_action", "case_key": selection, "verdict": "pass"}  # fmt: skip

    selfcheck = [row("policy"), row("selfcheck-say"), row("selfcheck-own")]
    found = held(selfcheck)
    assert (found.campaign, found.selfcheck, found.policy) == (0, 2, 1) and found.campaign_free
    assert "self-check" in campaign_free_text(found)
    assert not held([*selfcheck, row("prioritized")]).campaign_free
    assert not held([row("random")]).campaign_free and not held([]).campaign_free
    assert "its policy" in campaign_free_text(held([row("policy")]))
    workspace = ReportWorkspace()
    report = asyncio.run(workspace.refresh(selfcheck, None))
    assert report is not None and workspace.held == found
    assert report.figures == {} and report.sections == []
    assert report.summary.startswith("3 executions over 1 environment")

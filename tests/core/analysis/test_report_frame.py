"""A report reads only what it uses: long texts stay in the file, repeated JSON is held once,
and the report is the same as from the full results frame."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

from analysis_data import FL, P, R, row, small_rows
from test_analysis_report import write_db

from explaincheck.core import api
from explaincheck.core.analysis import report
from explaincheck.core.store import LEAN_REPLY_CHARS, results_frame


def test_the_report_is_the_same_from_the_lean_frame(tmp_path):
    db = tmp_path / "r.sqlite"
    write_db(db, small_rows())
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE executions SET thinking = 'long thought', reply = reply || ?",
                           ("x" * 5000,))  # fmt: skip
    lean, full = api.results(db, lean=True), results_frame(db)
    assert set(lean["thinking"]) == {""} and set(lean["prompt"]) == {""}
    assert lean["reply"].dropna().str.len().max() == LEAN_REPLY_CHARS
    assert full["reply"].dropna().str.len().max() > 5000
    assert report.render_text(report.build_report(lean)) == report.render_text(
        report.build_report(full)
    )


CHILD = """
import contextlib, io, json, resource, sys
from explaincheck.core.cli.main import main
import explaincheck.core.analysis.report, explaincheck.core.store  # what a report imports
if sys.argv[1] != "-":
    with contextlib.redirect_stdout(io.StringIO()):
        main(["report", "--db", sys.argv[1], "--out", sys.argv[2], "--format", "md"])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def _peak_mb(*args: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *args], capture_output=True, text=True, check=True
    )
    return int(done.stdout.split()[-1])


def test_report_memory_does_not_grow_with_the_thinking(tmp_path):
    db = tmp_path / "big.sqlite"
    rows = [
        row(FL, llm, "satisfy", selection, case, "pass" if case % 3 else "fail")
        for llm in ("m1", "m2")
        for selection in (P, R)
        for case in range(150)
    ]
    write_db(db, rows)  # 600 executions
    with sqlite3.connect(db) as connection:  # a reasoning model's 200 KB of thinking a row
        connection.execute("UPDATE executions SET thinking = ?", ("step by step " * 16_000,))
    baseline = _peak_mb("-", "-")
    grown = _peak_mb(str(db), str(tmp_path / "out")) - baseline
    # the thinking alone is 125 MB; read whole (before), the report held all of it
    assert grown < 60, json.dumps({"baseline": baseline, "grown": grown})

"""The report on a hand-made results database: tables, files, escaping and the CLI."""

from __future__ import annotations

import base64
import re

import pandas as pd
import pytest
from analysis_data import small_rows

from explaincheck.core.analysis import report, scores
from explaincheck.core.cli.main import main
from explaincheck.core.store import ExecutionRecord, Store, results_frame

HOSTILE_LLM = "<img src=x onerror=alert(2)>"
HOSTILE_REPLY = "<script>alert(1)</script>"


def write_db(path, rows) -> None:
    """Store hand-made executions through the store's own API."""
    with Store.open(path) as store:
        campaigns: dict[str, int] = {}
        for r in rows:
            if r["environment"] not in campaigns:
                campaigns[r["environment"]] = store.begin_campaign(
                    identity=r["environment"],
                    settings={},
                    environment=r["environment"],
                    model_path="model.prism",
                    model_hash="h",
                    constants="",
                    planned=0,
                )
            store.record(
                ExecutionRecord(
                    exec_key=f"{r['environment']}/{r['llm']}/{r['case_key']}/{r['repeat']}",
                    campaign_id=campaigns[r["environment"]],
                    environment=r["environment"],
                    model_hash="h",
                    llm=r["llm"],
                    category=r["category"],
                    dimension=r["dimension"],
                    selection=r["selection"],
                    case_index=r["states"][0],
                    case_key=r["case_key"],
                    positive=None,
                    states=r["states"],
                    valuations=[{}],
                    delta=r["delta"],
                    repeat=r["repeat"],
                    prompt=r["prompt"],
                    schema={},
                    options={},
                    reply=r["reply"],
                    verdict=r["verdict"],
                    reason=r["reason"],
                    grading={},
                    started_at="t",
                    finished_at="t",
                    answer=r["answer"],
                    expected=r["expected"],
                    abs_error=r["abs_error"],
                )
            )


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "results.sqlite"
    write_db(path, small_rows())
    return path


def test_database_round_trip_gives_the_hand_computed_table(db):
    table = scores.table1(results_frame(db))
    assert table.values.tolist() == [
        ["0.50†/1.00†", "0.50†/0.67†", "0.50/0.83"],
        ["0.50†/0.00†", "0.50†/0.50†", "0.50/0.25"],
        ["0.25†/err", "–", "0.25/–"],
        ["1.00†/0.50†", "–", "1.00/0.50"],
    ]


def test_text_report_has_every_section(db):
    text = report.render_text(report.build_report(results_frame(db)))
    for title in ("Table 1", "RQ1", "Wilcoxon", "RQ2", "RQ3", "Satisfy", "invalid replies"):
        assert title in text
    words = " ".join(text.split())  # wrapped prose
    assert "too few" in words and "for a Wilcoxon test" in words  # the headline is not run
    assert "0.50*/0.83" in text and "W.Bttl." not in text  # only categories that ran
    assert HOSTILE_REPLY not in text  # examples are for md/html/csv, not the terminal


def test_markdown_bolds_harder_cells_and_escapes(tmp_path):
    rows = small_rows()
    for r in rows:
        if r["llm"] == "random":
            r["llm"] = HOSTILE_LLM
    files = report.write_report(report.build_report(pd.DataFrame(rows)), tmp_path, "md")
    names = {f.name for f in files}
    assert {"report.md", "difficulty.png", "difficulty.svg", "table1_heatmap.png"} <= names
    text = (tmp_path / "report.md").read_text()
    assert "| m1 | **0.50†**/1.00† | **0.50†**/0.67† | **0.50**/0.83 |" in text
    assert "<script>" not in text and "<img" not in text
    assert "&lt;script&gt;" in text
    assert "![difficulty](difficulty.png)" in text


def test_html_is_self_contained_and_escaped(tmp_path):
    rows = small_rows()
    for r in rows:
        if r["llm"] == "random":
            r["llm"] = HOSTILE_LLM
    files = report.write_report(report.build_report(pd.DataFrame(rows)), tmp_path, "html")
    page = (tmp_path / "report.html").read_text()
    assert "report.html" in {f.name for f in files}
    assert "<script" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "<b>0.50†</b>/1.00†" in page
    images = re.findall(r'<img alt="[^"]*" src="([^"]+)">', page)
    assert len(images) == 2
    for source in images:
        assert source.startswith("data:image/svg+xml;base64,")
        svg = base64.b64decode(source.split(",", 1)[1])
        assert svg.lstrip().startswith(b"<?xml") and b"<script" not in svg
    assert not re.search(r"(src|href)=\"(https?:|file:|//)", page)  # nothing fetched


def test_csv_files_are_flat_and_defused(tmp_path):
    rows = small_rows()
    for r in rows:
        if r["llm"] == "random":
            r["llm"] = "=HYPERLINK(1)"
    report.write_report(report.build_report(pd.DataFrame(rows)), tmp_path, "csv")
    table = pd.read_csv(tmp_path / "table1.csv")
    assert table.columns.tolist() == ["environment", "llm", "satisfy", "bottleneck", "average"]
    assert sorted(table["llm"].tolist()[:2]) == ["'=HYPERLINK(1)", "m1"]
    assert table["satisfy"].tolist() == ["0.50†/0.00†", "0.50†/1.00†", "1.00†/0.50†", "0.25†/err"]
    cells = pd.read_csv(tmp_path / "cells.csv")
    assert len(cells) == 12
    rq1 = pd.read_csv(tmp_path / "rq1_counts.csv")
    assert rq1["cells"].tolist() == [2, 2, 1, 5]
    for name in ("rq1_wilcoxon", "rq1_cells", "rq2_models", "rq3_difficulty", "satisfy_errors"):
        assert (tmp_path / f"{name}.csv").is_file()


def test_cli_report_prints_and_writes(db, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["report", "--db", str(db), "--out", str(out), "--format", "html"]) == 0
    printed = capsys.readouterr().out
    assert "0.50*/0.83" in printed and "report.html" in printed
    for name in ("report.html", "table1_heatmap.png", "table1_heatmap.svg", "difficulty.png"):
        assert (out / name).stat().st_size > 0


def test_cli_report_default_out_beside_db(db, capsys):
    assert main(["report", "--db", str(db)]) == 0
    assert (db.parent / "results_report" / "report.md").is_file()


def test_cli_report_errors_are_one_line(tmp_path, capsys):
    assert main(["report", "--db", str(tmp_path / "missing.sqlite")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"explaincheck report: no results database at {tmp_path / 'missing.sqlite'}"
    )
    empty = tmp_path / "empty.sqlite"
    Store.open(empty).close()
    assert main(["report", "--db", str(empty)]) == 2
    assert "holds no results" in capsys.readouterr().err


def test_csv_headers_are_defused_too(tmp_path):
    rows = small_rows()
    for r in rows:
        if r["category"] == "satisfy":
            r["category"] = "=1+1"  # a category name from a shared database becomes a header
    report.write_report(report.build_report(pd.DataFrame(rows)), tmp_path, "csv")
    written = sorted(tmp_path.glob("*.csv"))
    headers = [path.read_text(encoding="utf-8").splitlines()[0] for path in written]
    assert any("'=1+1" in header for header in headers)
    for path, header in zip(written, headers, strict=True):
        cells = header.split(",")
        assert not any(cell.strip('"').startswith("=") for cell in cells), path.name

"""Exports against hostile replies and kills (issue 34 points 2 and 8), on a real campaign run
through the stand-in OpenAI server (real HTTP, the official client): every CSV the project
writes defuses formula cells with one function and reads back exactly; an export or report
killed midway leaves the old file (or none) under the final name, never a truncated one."""

from __future__ import annotations

import csv

import pyarrow.parquet as pq
import pytest
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.analysis import export as export_module
from explaincheck.core.analysis.export import read_export
from explaincheck.core.atomic_files import write_text_atomically
from explaincheck.core.cli.main import main
from explaincheck.core.csv_text import defused, undefused

MODEL = "standin-1b"
EVIL = '=HYPERLINK("http://evil/","x")'


@pytest.fixture(scope="module")
def evil_db(tmp_path_factory):
    """Two satisfy cases whose replies are a spreadsheet formula (text mode: no schema)."""
    folder = tmp_path_factory.mktemp("evil")
    db = folder / "r.sqlite"
    with StandinOpenAI({MODEL: Script(mode="no_response_format", text=EVIL)}) as server:
        args = ["run", "--env", "frozen_lake", "--llm", f"openai:{MODEL}", "--openai-base-url"]
        args += [server.base_url, "--categories", "satisfy", "--budget", "2", "--db", str(db)]
        assert main(args) == 0
    return db


def csv_replies(path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [row["reply"] for row in csv.DictReader(handle)]


def test_results_csv_defuses_formula_replies_and_reads_back_exactly(evil_db, tmp_path):
    out = tmp_path / "r.csv"
    assert main(["results", "--db", str(evil_db), "--format", "csv", "--out", str(out)]) == 0
    assert csv_replies(out) == ["'" + EVIL] * 2
    assert list(read_export(out)["reply"]) == [EVIL] * 2


def test_the_csv_beside_the_html_report_is_defused(evil_db, tmp_path):
    out = tmp_path / "report"
    assert main(["report", "--db", str(evil_db), "--out", str(out), "--format", "html"]) == 0
    assert csv_replies(out / "results.csv") == ["'" + EVIL] * 2


@pytest.mark.parametrize(
    "text", [EVIL, "'" + EVIL, "''=1+1", " @SUM(A1)", "-2+3", "-0.5", "+1", "plain", "'quoted"]
)
def test_defusing_round_trips(text):
    safe = defused(text)
    assert undefused(safe) == text
    if text.lstrip(" '")[:1] in "=@" or text.startswith("-2"):
        assert safe == "'" + text
    else:
        assert safe == text  # numbers and plain text stay as they are


def test_a_killed_jsonl_export_leaves_the_old_file(evil_db, tmp_path, monkeypatch):
    out = tmp_path / "r.jsonl"
    out.write_text("the old export\n")
    lines = iter(range(10))
    real = export_module.json_line

    def dying(value):
        if next(lines) == 1:  # the second line: the first is already written
            raise KeyboardInterrupt
        return real(value)

    monkeypatch.setattr(export_module, "json_line", dying)
    code = main(["results", "--db", str(evil_db), "--format", "jsonl", "--out", str(out)])
    assert code == 130
    assert out.read_text() == "the old export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]  # no temporary left


def test_a_killed_parquet_export_leaves_no_file(evil_db, tmp_path, monkeypatch):
    out = tmp_path / "r.parquet"

    def dying(self, table, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pq.ParquetWriter, "write_table", dying)
    code = main(["results", "--db", str(evil_db), "--format", "parquet", "--out", str(out)])
    assert code == 130
    assert list(tmp_path.iterdir()) == []  # was: a 0-byte r.parquet


def test_a_killed_report_leaves_no_half_table(evil_db, tmp_path, monkeypatch):
    from explaincheck.core.analysis import report as report_module

    out = tmp_path / "report"
    real = report_module.render_markdown

    def dying(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(report_module, "render_markdown", dying)
    assert main(["report", "--db", str(evil_db), "--out", str(out)]) == 130
    assert not (out / "report.md").exists()
    assert [p.name for p in out.iterdir() if p.suffix not in (".png", ".svg")] == []


def test_a_failed_write_keeps_the_old_text(tmp_path):
    target = tmp_path / "notes.toml"
    target.write_text("old = 1\n")

    def half(stream):
        stream.write("new = ")
        raise OSError(28, "No space left on device")

    from explaincheck.core.atomic_files import write_atomically

    with pytest.raises(OSError):
        write_atomically(target, half, binary=False)
    assert target.read_text() == "old = 1\n"
    write_text_atomically(target, "new = 2\n")
    assert target.read_text() == "new = 2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["notes.toml"]


def test_an_export_over_the_results_database_itself_is_refused(evil_db, capsys):
    """Found by the round-4 hostile pass: ``--out`` naming the ``--db`` file replaced the
    results with their export (now also atomically, so all at once)."""
    before = evil_db.read_bytes()
    for option in (["--format", "jsonl", "--out"], ["--config"]):
        assert main(["results", "--db", str(evil_db), *option, str(evil_db)]) == 2
        assert "is the results database itself" in capsys.readouterr().err
    assert evil_db.read_bytes() == before

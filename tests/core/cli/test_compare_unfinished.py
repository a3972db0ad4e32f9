"""``compare`` refuses to gate on an unfinished campaign (issue 52 point 3), on real SQLite files:
a new side still being written (4 of 14 executions stored) was compared, exit 0, "too few pairs",
never told unfinished; now both sides' planned and graded executions are said, an unfinished
side is one line and exit 2 unless ``--partial``."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from explaincheck.core.cli.main import main

SMALL = ["--env", "frozen_lake", "--llm", "random", "--categories", "satisfy,best_action"]
SMALL += ["--budget", "6"]


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sides")
    base = folder / "base.sqlite"
    assert main(["run", *SMALL, "--db", str(base)]) == 0
    running = folder / "running.sqlite"  # the same campaign, 4 executions stored so far
    shutil.copyfile(base, running)
    with sqlite3.connect(running) as db:
        db.execute("DELETE FROM executions WHERE id > 4")
        db.execute("UPDATE campaigns SET status = 'running'")
        (planned,) = db.execute("SELECT planned FROM campaigns").fetchone()
    errors = folder / "errors.sqlite"  # finished, but two executions got no reply
    shutil.copyfile(base, errors)
    with sqlite3.connect(errors) as db:
        db.execute("UPDATE executions SET verdict = 'error', reply = NULL WHERE id <= 2")
    return base, running, errors, planned


def compared(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["compare", *argv])
    said = capsys.readouterr()
    return code, said.out, said.err


def closing(out: str, base) -> str:
    """The closing sentence about both sides, its wrapped lines joined again."""
    lines = out.splitlines()
    first = max(i for i, line in enumerate(lines) if line.startswith(f"base {base}:"))
    return " ".join(lines[first:]).strip()


def test_an_unfinished_new_side_is_refused_in_one_line(sides, capsys):
    base, running, _, planned = sides
    code, out, err = compared(capsys, str(base), str(running))
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line == (
        f"explaincheck compare: NEW {running} is unfinished: 4 of {planned} planned executions"
        f" graded (the other side: {planned} of {planned} planned executions graded); a gate on"
        " part of a campaign passes or fails on what is stored so far: compare it when its"
        " campaign is done, or give --partial"
    )


def test_an_unfinished_base_and_error_rows_are_unfinished_too(sides, capsys):
    base, running, errors, planned = sides
    code, _, err = compared(capsys, str(running), str(base))
    assert code == 2 and f"BASE {running} is unfinished: 4 of {planned}" in err
    code, _, err = compared(capsys, str(base), str(errors))
    assert code == 2
    said = f"NEW {errors} is unfinished: {planned - 2} of {planned} planned executions graded"
    assert f"{said} (2 errors)" in err


def test_partial_compares_and_says_planned_against_graded(sides, capsys):
    base, running, _, planned = sides
    code, out, _ = compared(capsys, str(base), str(running), "--partial")
    assert code == 0
    assert closing(out, base) == (
        f"base {base}: {planned} of {planned} planned executions graded; new {running}: 4 of"
        f" {planned} planned executions graded (unfinished: compared with --partial)"
    )
    code, out, _ = compared(capsys, str(base), str(running), "--partial", "--json")
    assert json.loads(out)["sides"] == {
        "base": {
            "planned": planned,
            "stored": planned,
            "graded": planned,
            "errors": 0,
            "finished": True,
        },
        "new": {"planned": planned, "stored": 4, "graded": 4, "errors": 0, "finished": False},
    }


def test_two_finished_sides_say_so(sides, capsys):
    base, _, _, planned = sides
    code, out, _ = compared(capsys, str(base), str(base))
    assert code == 0
    assert closing(out, base) == (
        f"base {base}: {planned} of {planned} planned executions graded; new {base}:"
        f" {planned} of {planned} planned executions graded"
    )


def test_the_closing_line_is_wrapped_to_100_columns_at_long_paths(
    sides, capsys, tmp_path, monkeypatch
):
    """Issue 52's leftover: the line about unfinished sides grew with the paths (113 columns
    with short ones) while the rest of compare's output fits ``WIDTH``; every line fits now,
    and the sentence read across its lines is unchanged."""
    from explaincheck.core.cli.compare_sides import WIDTH

    base, running, _, planned = sides
    monkeypatch.chdir(tmp_path)  # relative paths of 60-odd columns: each fits a line
    folder = Path("campaigns-of-the-nightly-gate") / "a-folder-with-a-rather-long-name"
    folder.mkdir(parents=True)
    long_base, long_running = folder / "base-campaign.sqlite", folder / "running-campaign.sqlite"
    shutil.copyfile(base, long_base)
    shutil.copyfile(running, long_running)
    assert 60 < len(str(long_running)) < WIDTH  # a longer path than a line is kept whole
    code, out, _ = compared(capsys, str(long_base), str(long_running), "--partial")
    assert code == 0
    too_wide = [line for line in out.splitlines() if len(line) > WIDTH]
    assert too_wide == []
    assert closing(out, long_base) == (
        f"base {long_base}: {planned} of {planned} planned executions graded; new"
        f" {long_running}: 4 of {planned} planned executions graded (unfinished: compared with"
        " --partial)"
    )


def test_compare_cases_refuses_an_unfinished_side_too(sides, capsys, tmp_path):
    """``compare --cases`` (the gate on one part of a split) never asked whether a side was
    finished: a campaign with error rows was judged, exit 0, without a word; it is refused as
    the whole-file gate refuses it, and ``--partial`` says both sides at the end."""
    base, _, errors, planned = sides
    split = tmp_path / "split.json"
    assert main(["split", "--db", str(base), "--out", str(split)]) == 0
    cases = ["--cases", f"{split}:held-out"]
    code, out, err = compared(capsys, str(base), str(errors), *cases)
    assert code == 2 and out == ""
    said = f"NEW {errors} is unfinished: {planned - 2} of {planned} planned executions graded"
    assert f"{said} (2 errors)" in err
    code, out, _ = compared(capsys, str(base), str(errors), *cases, "--partial")
    assert code in (0, 1)
    assert closing(out, base) == (
        f"base {base}: {planned} of {planned} planned executions graded; new {errors}:"
        f" {planned - 2} of {planned} planned executions graded (2 errors) (unfinished:"
        " compared with --partial)"
    )
    assert max(map(len, out.splitlines())) <= 100  # the legend too (it was 252 columns)
    code, out, _ = compared(capsys, str(base), str(errors), *cases, "--partial", "--json")
    assert json.loads(out)["sides"]["new"]["errors"] == 2

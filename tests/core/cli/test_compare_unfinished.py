"""``compare`` refuses to gate on an unfinished campaign (issue 52 point 3), on real SQLite files:
a new side still being written (4 of 14 executions stored) was compared, exit 0, "too few pairs",
never told unfinished; now both sides' planned and graded executions are said, an unfinished
side is one line and exit 2 unless ``--partial``."""

from __future__ import annotations

import json
import shutil
import sqlite3

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
    assert out.strip().splitlines()[-1] == (
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
    assert out.strip().splitlines()[-1] == (
        f"base {base}: {planned} of {planned} planned executions graded; new {base}:"
        f" {planned} of {planned} planned executions graded"
    )

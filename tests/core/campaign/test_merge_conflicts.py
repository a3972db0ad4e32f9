"""``merge`` of copies that disagree (issue 52 point 1), on real SQLite files: two copies of one
campaign whose graded rows differ (another verdict and reply, the same finishing time: what
copies resumed on two machines meet) merge to the same file and the same report in either
order; the report says how many executions disagree and by which rule one side was kept;
``--on-conflict fail`` writes nothing, ``keep-both-as-repeats`` keeps both versions."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from explaincheck.core.cli.main import main

SMALL = ["--env", "frozen_lake", "--llm", "random", "--categories", "satisfy,best_action"]
SMALL += ["--budget", "4"]
# columns that say where or when a row was written, not what it holds
WHERE = {"id", "campaign_id", "created_at", "updated_at"}


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> tuple[Path, Path, int]:
    """A campaign and a copy with every second row's verdict turned over and its reply
    changed; returns both and how many rows differ."""
    folder = tmp_path_factory.mktemp("copies")
    first, second = folder / "machine1.sqlite", folder / "machine2.sqlite"
    assert main(["run", *SMALL, "--db", str(first)]) == 0
    copy_database(first, second)
    with closing(sqlite3.connect(second)) as db, db:
        changed = db.execute(
            "UPDATE executions SET verdict = CASE verdict WHEN 'pass' THEN 'fail' ELSE 'pass'"
            " END, reply = '{\"changed\": true}' WHERE id % 2 = 0"
        ).rowcount
    assert changed == 4
    return first, second, changed


def copy_database(source: Path, target: Path) -> None:
    """A whole copy of a WAL-mode database (SQLite's backup: a file copy of ``source`` alone
    misses what its ``-wal`` file still holds, which is how CI once merged unchanged rows)."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def content(db: Path) -> dict[str, list[tuple]]:
    """Every table's rows without the columns that say where or when they were written; the
    run options' ``db`` (the merged file's own name) left out."""
    found = {}
    with sqlite3.connect(db) as connection:
        for (table,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table'"):
            cursor = connection.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cursor.description]
            rows = []
            for row in cursor:
                values = dict(zip(names, row, strict=True))
                if table == "campaigns":
                    settings = json.loads(values["settings"])
                    settings.get("run_options", {}).pop("db", None)
                    values["settings"] = settings
                rows.append(tuple(str(values[n]) for n in names if n not in WHERE))
            found[table] = sorted(rows)
    return found


def merged(inputs: list[Path], out: Path, capsys, *options: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["merge", *map(str, inputs), "--out", str(out), *options])
    said = capsys.readouterr()
    return code, said.out, said.err


def verdicts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as connection:
        return dict(connection.execute("SELECT verdict, COUNT(*) FROM executions GROUP BY 1"))


def test_either_order_gives_the_same_file_and_the_same_report(copies, tmp_path, capsys):
    first, second, changed = copies
    (tmp_path / "ab").mkdir(), (tmp_path / "ba").mkdir()
    code_ab, said_ab, _ = merged([first, second], tmp_path / "ab" / "m.sqlite", capsys)
    code_ba, said_ba, _ = merged([second, first], tmp_path / "ba" / "m.sqlite", capsys)
    assert code_ab == code_ba == 0
    ab, ba = content(tmp_path / "ab" / "m.sqlite"), content(tmp_path / "ba" / "m.sqlite")
    assert ab["executions"] and ab == ba  # same rows, verdicts, replies, campaign, cache
    assert said_ab.replace("/ab/", "/ba/") == said_ba  # the same report, word for word
    line = said_ab.splitlines()[-1]
    assert line.startswith(f"{changed} executions disagree between the inputs (in the verdict)")
    assert "--on-conflict newest" in line and "never by input order" in line
    assert "8 executions of 8 planned" in said_ab


def test_the_newest_version_wins_whatever_the_order(copies, tmp_path, capsys):
    first, second, _ = copies
    later = tmp_path / "later.sqlite"
    copy_database(second, later)
    # machine 2 finished its changed rows a day later
    with closing(sqlite3.connect(later)) as db, db:
        db.execute("UPDATE executions SET finished_at = '2999-01-01T00:00:00' WHERE id % 2 = 0")
    for order in ([first, later], [later, first]):
        out = tmp_path / f"m{len(list(tmp_path.iterdir()))}.sqlite"
        assert merged(order, out, capsys)[0] == 0
        with sqlite3.connect(out) as db:
            kept = db.execute("SELECT COUNT(*) FROM executions WHERE reply LIKE '%changed%'")
            assert kept.fetchone() == (4,)


def test_on_conflict_fail_writes_nothing_and_names_the_first(copies, tmp_path, capsys):
    first, second, changed = copies
    out = tmp_path / "m.sqlite"
    code, said, err = merged([second, first], out, capsys, "--on-conflict", "fail")
    assert code == 2 and said == ""
    assert len(err.strip().splitlines()) == 1
    assert f"{changed} executions disagree between the inputs" in err
    assert "random on " in err and "Nothing written" in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_keep_both_as_repeats_keeps_every_version(copies, tmp_path, capsys):
    first, second, changed = copies
    out = tmp_path / "m.sqlite"
    code, said, _ = merged([first, second], out, capsys, "--on-conflict", "keep-both-as-repeats")
    assert code == 0
    assert f"{changed} repeats added" in said
    assert sum(verdicts(out).values()) == 8 + changed
    with sqlite3.connect(second) as db:
        turned = dict(
            db.execute("SELECT verdict, COUNT(*) FROM executions WHERE id % 2 = 0 GROUP BY 1")
        )
    assert verdicts(out) == {  # the first copy's rows and the second's differing ones
        v: verdicts(first).get(v, 0) + turned.get(v, 0) for v in ("pass", "fail")
    }
    with sqlite3.connect(out) as db:
        repeats = db.execute("SELECT repeat, COUNT(*) FROM executions GROUP BY 1").fetchall()
        assert repeats == [(0, 8), (1, changed)]
        assert db.execute("SELECT status FROM campaigns").fetchone() == ("finished",)
        marks = db.execute(  # each added version names the repeat whose request it answered
            "SELECT repeat, json_extract(options, '$.merged_version_of_repeat') FROM executions"
        ).fetchall()
        assert sorted(marks) == [(0, None)] * 8 + [(1, 0)] * changed
    capsys.readouterr()  # a version is not an independent repeat: each case was asked once
    assert main(["results", "--db", str(out), "--by-case", "--json"]) == 0
    cases = json.loads(capsys.readouterr().out)
    assert [(c["runs"], c["stability"]) for c in cases] == [(1, None)] * 8
    assert main(["results", "--db", str(out), "--by-case"]) == 0  # the table says what it left out
    table = capsys.readouterr().out
    assert f"{changed} merged version{'s' if changed != 1 else ''} left out" in table
    assert main(["results", "--db", str(first), "--by-case"]) == 0  # none to leave out: no line
    assert "merged version" not in capsys.readouterr().out
    other = tmp_path / "other"
    other.mkdir()
    assert (
        merged(
            [second, first], other / "m.sqlite", capsys, "--on-conflict", "keep-both-as-repeats"
        )[0]
        == 0
    )
    assert content(out) == content(other / "m.sqlite")

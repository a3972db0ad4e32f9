"""The store under hostile conditions: damaged, empty, read-only and immutable files, read-only
folders and two processes creating the same database at once."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from explaincheck.core.cli.main import main
from explaincheck.core.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    VERSION_KEY,
    ExecutionRecord,
    Store,
    StoreError,
    now,
    results_frame,
)


def record(key: str, **changes) -> ExecutionRecord:
    values = dict(
        exec_key=key,
        campaign_id=1,
        environment="frozen_lake",
        model_hash="abc",
        llm="random",
        category="satisfy",
        dimension="state",
        selection="prioritized",
        case_index=0,
        case_key=f"satisfy/prioritized/0/{key}",
        positive=None,
        states=[5],
        valuations=[{"r": 1, "c": 1}],
        delta=0.9,
        repeat=0,
        prompt="What is the probability? " * 20,
        schema={"type": "object"},
        options={"temperature": 0.0},
        reply='{"probability": 0.5}',
        verdict="pass",
        reason="|0.5 - 0.52| <= 0.05",
        grading={"satisfy_rule": "absolute", "satisfy_tolerance": 0.05},
        started_at=now(),
        finished_at=now(),
        answer={"probability": 0.5},
        expected={"probability": 0.52},
    )
    values.update(changes)
    return ExecutionRecord(**values)


def filled(path: Path, rows: int = 3) -> Path:
    with Store.open(path) as store:
        store.begin_campaign(
            identity="c",
            settings={"budget": 1, "llms": ["random"]},
            environment="frozen_lake",
            model_path="m.prism",
            model_hash="abc",
            constants="N=4",
            planned=rows,
        )
        for i in range(rows):
            store.record(record(f"k{i}"))
    return path


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys, monkeypatch):
    """The real command line (``main``), with its exit status and output as a user sees them."""
    monkeypatch.setenv("COLUMNS", "100")

    def call(*args: str) -> Outcome:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return Outcome(code, out, err)

    return call


def one_clear_line(result: Outcome, *needles: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0]


# -- empty and damaged files -------------------------------------------------------------------


def test_reading_an_empty_file_writes_nothing_into_it(tmp_path, cli):
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(StoreError, match="is empty"):
        Store.open(empty, readonly=True)
    result = cli("results", "--db", str(empty))
    one_clear_line(result, "is empty")
    assert empty.stat().st_size == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite"]
    one_clear_line(cli("report", "--db", str(empty)), "is empty")
    assert empty.stat().st_size == 0


def test_corrupt_pages_give_one_line(tmp_path, cli):
    path = filled(tmp_path / "r.sqlite", rows=200)
    data = bytearray(path.read_bytes())
    page = 4096
    for start in range(2 * page, len(data) - page, 3 * page):  # garbage over many pages
        data[start + 8 : start + page] = os.urandom(page - 8)
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"damaged|not a results database"):  # noqa: SIM117
        with Store.open(path, readonly=True) as store:  # the damage shows when opening or reading
            list(store.iter_executions())
    one_clear_line(cli("results", "--db", str(path)), str(path))
    one_clear_line(cli("report", "--db", str(path)), str(path))


def test_malformed_json_column_names_the_row(tmp_path, cli):
    path = filled(tmp_path / "r.sqlite")
    db = sqlite3.connect(path)
    db.execute("UPDATE executions SET states = '[5, ' WHERE exec_key = 'k1'")
    db.commit()
    db.close()
    store = Store.open(path, readonly=True)
    with store, pytest.raises(StoreError, match=r"execution 2 has malformed JSON in 'states'"):
        store.executions()
    one_clear_line(cli("results", "--db", str(path), "--json"), "execution 2", "'states'")


def test_values_of_the_wrong_type_are_refused(tmp_path, cli):
    path = filled(tmp_path / "r.sqlite")
    db = sqlite3.connect(path)
    db.execute("UPDATE executions SET repeat = 'often' WHERE exec_key = 'k0'")
    db.execute("UPDATE executions SET states = '\"five\"' WHERE exec_key = 'k2'")
    db.commit()
    db.close()
    with Store.open(path, readonly=True) as store:
        with pytest.raises(StoreError, match=r"execution 1 has a str in 'repeat'"):
            store.executions(row_id=1)
        with pytest.raises(StoreError, match=r"execution 3 has a str in 'states'"):
            store.executions(row_id=3)
    one_clear_line(cli("report", "--db", str(path)), "execution 1")


def test_declared_column_types_are_checked(tmp_path):
    path = filled(tmp_path / "r.sqlite")
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE executions RENAME COLUMN delta TO delta_old")
    db.execute("ALTER TABLE executions ADD COLUMN delta TEXT")
    db.commit()
    db.close()
    for readonly in (True, False):
        with pytest.raises(StoreError, match=r"executions.delta has type 'TEXT', expected 'REAL'"):
            Store.open(path, readonly=readonly)


def test_our_application_id_without_tables_is_damage(tmp_path, cli):
    path = tmp_path / "r.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.commit()
    db.close()
    for readonly in (True, False):
        with pytest.raises(StoreError, match="damaged: the table 'campaigns' is missing"):
            Store.open(path, readonly=readonly)
    one_clear_line(cli("results", "--db", str(path)), "'campaigns' is missing")
    one_clear_line(cli("report", "--db", str(path)), "'campaigns' is missing")


def test_bad_campaign_settings_are_damage(tmp_path):
    path = filled(tmp_path / "r.sqlite")
    db = sqlite3.connect(path)
    db.execute("UPDATE campaigns SET settings = '{oops'")
    db.commit()
    db.close()
    with Store.open(path, readonly=True) as store, pytest.raises(StoreError, match="campaign 1"):
        store.campaigns()


# -- read-only and immutable -------------------------------------------------------------------


def _chattr(path: Path, flag: str) -> bool:
    try:
        done = subprocess.run(["chattr", flag, str(path)], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@pytest.fixture
def immutable():
    """Make paths immutable (chattr +i; refuses writes even to root); undone afterwards."""
    marked: list[Path] = []

    def mark(path: Path) -> None:
        if not _chattr(path, "+i"):
            pytest.skip("chattr +i is not available here")
        marked.append(path)

    yield mark
    for path in reversed(marked):
        _chattr(path, "-i")


def test_results_in_a_read_only_folder_can_be_read(tmp_path, immutable, cli):
    folder = tmp_path / "shared"
    folder.mkdir()
    path = filled(folder / "r.sqlite", rows=4)
    assert not (folder / "r.sqlite-shm").exists()  # closed cleanly: no WAL index left
    immutable(folder)
    with Store.open(path, readonly=True) as store:
        assert [r["exec_key"] for r in store.executions()] == ["k0", "k1", "k2", "k3"]
    assert len(results_frame(path)) == 4
    shown = cli("results", "--db", str(path))
    assert shown.returncode == 0, shown.stderr
    assert "4 executions: 4 pass" in shown.stdout
    one_clear_line(cli("results", "--db", str(folder / "new.sqlite")), "no results database")
    with pytest.raises(StoreError, match=r"folder .* is read-only"):
        Store.open(path)


def test_an_immutable_file_is_read_but_not_written(tmp_path, immutable, cli):
    path = filled(tmp_path / "r.sqlite", rows=2)
    immutable(path)
    with pytest.raises(StoreError, match="the file is read-only"):
        Store.open(path)
    with Store.open(path, readonly=True) as store:
        assert store.count() == 2
    one_clear_line(
        cli("run", "--env", "frozen_lake", "--llm", "random", "--budget", "1", "--db", str(path)),
        "read-only",
    )


def test_reading_commands_never_create_a_file(tmp_path, cli):
    missing = tmp_path / "missing.sqlite"
    one_clear_line(cli("results", "--db", str(missing)), "no results database")
    with pytest.raises(StoreError, match="no results database"):
        Store.open(missing, readonly=True)
    assert list(tmp_path.iterdir()) == []


# -- two processes creating one database -------------------------------------------------------


def _create_and_begin(path: str, start_at: float, queue) -> None:
    try:
        while time.time() < start_at:
            pass
        with Store.open(path) as store:
            campaign = store.begin_campaign(
                identity="same",
                settings={},
                environment="e",
                model_path="m",
                model_hash="h",
                constants="",
                planned=1,
            )
        queue.put(("ok", campaign))
    except Exception as error:  # reported to the parent, which fails the test
        queue.put(("error", repr(error)))


@pytest.mark.parametrize("existing", [False, True], ids=["new-file", "existing-file"])
def test_two_processes_starting_one_campaign(tmp_path, existing):
    """Both start at the same instant; before the fix 19 of 20 new files failed with "table
    campaigns already exists" and 18 of 20 existing ones got two rows with one identity."""
    context = multiprocessing.get_context("fork")
    failures, duplicates = [], 0
    for attempt in range(20):
        path = str(tmp_path / f"r{attempt}.sqlite")
        if existing:
            Store.open(path).close()
        queue = context.Queue()
        start_at = time.time() + 0.15
        workers = [
            context.Process(target=_create_and_begin, args=(path, start_at, queue))
            for _ in range(2)
        ]
        for worker in workers:
            worker.start()
        outcomes = [queue.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(timeout=60)
        failures += [message for kind, message in outcomes if kind == "error"]
        assert len({campaign for kind, campaign in outcomes if kind == "ok"}) <= 1
        db = sqlite3.connect(path)
        duplicates += db.execute("SELECT COUNT(*) FROM campaigns").fetchone()[0] - 1
        db.close()
    assert failures == []
    assert duplicates == 0


def test_campaign_rows_record_the_version(tmp_path):
    path = filled(tmp_path / "r.sqlite")
    with Store.open(path, readonly=True) as store:
        (campaign,) = store.campaigns()
    assert campaign.settings[VERSION_KEY][0].isdigit()
    assert campaign.extra == {"model_path": "m.prism", "constants": "N=4"}
    raw = sqlite3.connect(path).execute("SELECT settings FROM campaigns").fetchone()[0]
    assert json.loads(raw)["budget"] == 1

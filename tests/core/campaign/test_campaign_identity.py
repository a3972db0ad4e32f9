"""A row belongs to the campaign that planned it (issue 34 point 1), on real SQLite files: a
second campaign in the same results file (another seed) asks every one of its executions
itself and stores what a fresh run of it stores; a file of the previous schema is migrated so
its campaign still resumes without asking anything again."""

from __future__ import annotations

import json
import sqlite3

from explaincheck.core.cli.main import main
from explaincheck.core.store import PROBE_TABLE, SCHEMA_VERSION

RUN = ["run", "--env", "frozen_lake", "--llm", "random", "--categories", "satisfy,best_action"]
RUN += ["--budget", "6", "--selection", "both"]


def answers(db, capsys, seed: int) -> list[tuple]:
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    with sqlite3.connect(db) as connection:
        seeds = dict(connection.execute("SELECT id, settings FROM campaigns").fetchall())
    mine = [r for r in rows if json.loads(seeds[r["campaign_id"]])["seed"] == seed]
    return sorted((r["case_key"], r["llm"], r["repeat"], r["reply"], r["verdict"]) for r in mine)


def test_a_second_campaign_never_borrows_the_first_ones_rows(tmp_path, capsys):
    shared, fresh = tmp_path / "E.sqlite", tmp_path / "fresh.sqlite"
    assert main([*RUN, "--seed", "0", "--db", str(shared)]) == 0
    capsys.readouterr()
    assert main([*RUN, "--seed", "5", "--db", str(shared)]) == 0
    said = capsys.readouterr()
    assert "resuming" not in said.out + said.err  # was: "resuming: 12 of 48 already stored"
    assert main([*RUN, "--seed", "5", "--db", str(fresh)]) == 0
    alone = answers(fresh, capsys, 5)
    assert answers(shared, capsys, 5) == alone
    with sqlite3.connect(shared) as connection:
        counts = connection.execute(
            "SELECT c.planned, COUNT(e.id) FROM campaigns c JOIN executions e"
            " ON e.campaign_id = c.id GROUP BY c.id ORDER BY c.id"
        ).fetchall()
    assert counts == [(len(alone), len(alone))] * 2  # each campaign holds all of its own rows
    capsys.readouterr()
    assert main([*RUN, "--seed", "5", "--db", str(shared)]) == 0  # the same campaign resumes
    said = capsys.readouterr()
    assert f"resuming: {len(alone)} of {len(alone)} already stored" in said.out + said.err


def test_a_v4_file_is_migrated_and_still_resumes(tmp_path, capsys):
    db = tmp_path / "old.sqlite"
    assert main([*RUN, "--seed", "0", "--db", str(db)]) == 0
    with sqlite3.connect(db) as connection:  # make it the v4 file the previous version wrote
        (identity,) = connection.execute("SELECT identity FROM campaigns").fetchone()
        connection.execute(PROBE_TABLE)
        connection.execute(
            "UPDATE executions SET exec_key = substr(exec_key, 1, length(exec_key) - ?)",
            (len(identity) + 1,),
        )
        (key,) = connection.execute("SELECT exec_key FROM executions LIMIT 1").fetchone()
        connection.execute(
            "INSERT INTO factor_behaviour VALUES ('random', ?, 'p', 0, 'q', 'r', 'a')", (key,)
        )
        for table in ("executions", "replies"):  # v6's column: a v4 file has none
            connection.execute(f"ALTER TABLE {table} DROP COLUMN cached_prompt_tokens")
        connection.execute("PRAGMA user_version = 4")
    assert not key.endswith(identity)
    capsys.readouterr()
    assert main([*RUN, "--seed", "0", "--db", str(db)]) == 0
    said = capsys.readouterr()
    assert "resuming: 24 of 24 already stored" in said.out + said.err
    with sqlite3.connect(db) as connection:
        keys = [k for (k,) in connection.execute("SELECT exec_key FROM executions")]
        (probe,) = connection.execute("SELECT exec_key FROM factor_behaviour").fetchone()
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert len(keys) == 24 and all(k.endswith(f"|{identity}") for k in keys)
    assert probe == f"{key}|{identity}"

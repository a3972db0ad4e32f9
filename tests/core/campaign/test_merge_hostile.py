"""``merge`` against hostile inputs (issue 34 points 4, 5 and 19), on real SQLite files: shards
cut with different N are refused, a merge killed midway leaves nothing under ``--out`` (and
the rerun works), and the campaign file written from a merged file names the merged file."""

from __future__ import annotations

import sqlite3
import tomllib

import pytest

from explaincheck.core.campaign import merge as merge_module
from explaincheck.core.cli.main import main
from explaincheck.core.store import Store

SMALL = ["--env", "frozen_lake", "--llm", "random", "--categories", "satisfy,best_action"]
SMALL += ["--budget", "4"]


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cut")
    for name, shard in (("a1", "1/3"), ("a2", "2/3"), ("a3", "3/3"), ("b2", "2/2")):
        db = folder / f"{name}.sqlite"
        assert main(["run", *SMALL, "--shard", shard, "--db", str(db)]) == 0
    return folder


def test_shards_cut_with_different_n_are_refused(shards, capsys):
    out = shards / "mixed.sqlite"
    capsys.readouterr()
    code = main(["merge", str(shards / "a1.sqlite"), str(shards / "b2.sqlite"), "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1
    assert "a shard of 3" in err and "a shard of 2" in err and "same N" in err
    assert not out.exists()


def test_a_killed_merge_leaves_nothing_under_out_and_the_rerun_works(shards, monkeypatch):
    out = shards / "killed.sqlite"
    inputs = [str(shards / f"a{i}.sqlite") for i in (1, 2, 3)]

    def killed(self, replies):  # the merge dies after its rows, before its replies
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(Store, "put_replies", killed)
        with pytest.raises(KeyboardInterrupt):
            merge_module.merge_databases(inputs, out)
    assert not out.exists()
    assert [p.name for p in shards.iterdir() if p.name.startswith(".killed")] == []
    assert main(["merge", *inputs, "--out", str(out)]) == 0  # not "exists: merge into a new file"
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT status FROM campaigns").fetchall() == [("finished",)]


def test_the_campaign_file_of_a_merged_file_names_the_merged_file(shards, capsys):
    out = shards / "whole.sqlite"
    inputs = [str(shards / f"a{i}.sqlite") for i in (1, 2, 3)]
    assert main(["merge", *inputs, "--out", str(out)]) == 0
    config = shards / "again.toml"
    assert main(["results", "--db", str(out), "--config", str(config)]) == 0
    options = tomllib.loads(config.read_text())
    assert options["db"] == str(out)
    assert "shard" not in options


def test_a_merge_into_a_missing_folder_is_one_line(shards, capsys):
    """Found by the round-4 hostile pass: a traceback (the temporary file had no folder)."""
    out = shards / "nowhere" / "m.sqlite"
    assert main(["merge", str(shards / "a1.sqlite"), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "does not exist" in err and "Traceback" not in err

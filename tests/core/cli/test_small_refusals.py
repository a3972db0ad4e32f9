"""The smaller findings of the round-5 hostile pass (issue 52 point 10), on real files: a tampered
campaign record is one line in words (not "Campaign.__init__() missing 1 required positional
argument"), a file whose schema version was changed says so (not "duplicate column name:
wording"), and a DTMC is checked with a word that it has no decisions."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from explaincheck.core.cli.main import main

MODELS = Path(__file__).resolve().parents[2] / "models"
SMALL = ["--env", "frozen_lake", "--llm", "random", "--categories", "satisfy,best_action"]
SMALL += ["--budget", "3"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    db = tmp_path_factory.mktemp("small") / "r.sqlite"
    assert main(["run", *SMALL, "--db", str(db)]) == 0
    return db


def tampered_record(results: Path, out: Path, edit) -> Path:
    shutil.copyfile(results, out)
    with sqlite3.connect(out) as db:
        settings = json.loads(db.execute("SELECT settings FROM campaigns").fetchone()[0])
        edit(settings)
        db.execute("UPDATE campaigns SET settings = ?", (json.dumps(settings),))
    return out


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda s: s.pop("environment"), "missing field 'environment'"),
        (lambda s: s.update(llms=5), "field 'llms': expected a list, got an integer"),
        (lambda s: s.update(grading="x"), "field 'grading': expected an object, got a string"),
        (lambda s: s.update(budget=-3), "--budget must be at least 1 (got -3)"),
    ],
    ids=["no-environment", "llms-number", "grading-text", "budget-negative"],
)
def test_a_tampered_campaign_record_is_one_line_in_words(
    results, tmp_path, capsys, caplog, edit, said
):
    db = tampered_record(results, tmp_path / "t.sqlite", edit)
    capsys.readouterr()
    assert main(["share", "--db", str(db), "--out", str(tmp_path / "t.html")]) == 0
    (warning,) = caplog.messages  # the share file is written, without the oracle's values
    assert "__init__" not in warning and "\n" not in warning
    assert warning.startswith("the share file shows no oracle values: the campaign record of")
    assert warning.endswith(said)
    assert main(["regrade", "--db", str(db), "--satisfy-rule", "half"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("explaincheck regrade: the campaign record of model") and said in err


@pytest.mark.parametrize("version", [1, 3, 5])
def test_a_changed_schema_version_is_said(results, tmp_path, capsys, version):
    db = tmp_path / "v.sqlite"
    shutil.copyfile(results, db)
    with sqlite3.connect(db) as connection:
        connection.execute(f"PRAGMA user_version = {version}")
    said = (
        f"v.sqlite is marked as results schema v{version}, but its tables are of a later version"
        " (this explaincheck reads v6): its schema version was changed; restore a copy or run"
        " the campaign into a new --db"
    )
    for argv in (["compare", str(results), str(db)], ["results", "--db", str(db)]):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.endswith(said) and "duplicate column" not in err, err


def test_a_dtmc_is_checked_with_a_word_that_it_has_no_decisions(tmp_path, capsys):
    dtmc = str(MODELS / "die.prism")
    capsys.readouterr()
    assert main(["oracle", dtmc]) == 0
    out = capsys.readouterr().out
    assert "decisions    none: one choice per state, as in a DTMC (V = Pmax = Pmin; no" in out
    assert main(["oracle", "frozen_lake"]) == 0
    assert "decisions" not in capsys.readouterr().out  # an MDP with choices says nothing
    assert main(["run", "--env", dtmc, "--llm", "random", "--db", str(tmp_path / "d.sqlite")]) == 0
    err = capsys.readouterr().err
    for category in ("best_action", "worst_action", "ranking"):
        assert (
            f"{category}: not applicable (the model has no decisions (one choice per state, as"
            " in a DTMC): no action to prefer)"
        ) in err

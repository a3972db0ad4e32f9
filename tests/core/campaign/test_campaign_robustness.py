"""Wordings and metamorphic variants through plan, run, store and report on frozen_lake.

Old databases keep working: wording 0 keeps the old case keys and campaign identity, and a v1
file (no wording/family columns) is migrated and resumed without asking anything again.
"""

from __future__ import annotations

import sqlite3

import pytest

from explaincheck.core.analysis import robustness
from explaincheck.core.campaign.plan import Campaign, plan_campaign, resolve_wordings
from explaincheck.core.campaign.regrade import regrade
from explaincheck.core.cli.main import main
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import _SCHEMA_V1, APPLICATION_ID, SCHEMA_VERSION, Store, results_frame
from explaincheck.core.taxonomy.base import WORDINGS, GradingSettings

CATEGORIES = ("more_promising", "best_action", "subset_dead_end")
ARGS = ["--env", "frozen_lake", "--llm", "oracle", "--llm", "random", "--budget", "2"]
ARGS += ["--categories", ",".join(CATEGORIES)]


def _plan(**settings):
    return plan_campaign(Campaign("frozen_lake", ("oracle",), CATEGORIES, 2, **settings))


def test_wording_choices():
    assert resolve_wordings("all") == tuple(range(WORDINGS))
    assert resolve_wordings("2") == (2,)
    assert resolve_wordings("0,1") == (0, 1)
    for bad in ("3", "x", ""):
        with pytest.raises(ExplaincheckError, match="--wording"):
            resolve_wordings(bad)


def without_campaign(key: str) -> str:
    """An execution key without the campaign identity ``plan.campaign_key`` appends."""
    return key.rsplit("|", 1)[0]


def test_plan_multiplies_wordings_and_variants_and_keeps_old_keys():
    plain = _plan()
    full = _plan(wordings=(0, 1, 2), metamorphic=True)
    keys = [e.key for e in full.executions]
    assert len(set(keys)) == len(keys)
    # per base case: 3 wordings x (1 + variants); more_promising has swap, rename, actions,
    # best_action has actions, subset_dead_end has subset_order, rename, actions
    variants = {"more_promising": 3, "best_action": 1, "subset_dead_end": 3}
    expected = sum(3 * (1 + variants[e.case.category]) for e in plain.executions)
    assert full.total == expected
    # wording 0, untransformed: the keys of before, but for the campaign identity they end with
    # (another campaign: one campaign per row)
    old = {without_campaign(e.key) for e in plain.executions}
    assert old <= {without_campaign(key) for key in keys}
    assert all(key.endswith("|" + full.identity) for key in keys)
    assert plain.identity == _plan(wordings=(0,), metamorphic=False).identity
    assert full.identity != plain.identity
    for execution in full.executions:
        case = execution.case
        if case.variant:
            assert case.family.split("/")[:3] == case.key.split("/")[:3]
            assert case.family in {e.case.key for e in full.executions}


def test_run_stores_wording_and_family_and_the_report_reads_them(tmp_path):
    db = tmp_path / "m.sqlite"
    assert main(["run", *ARGS, "--wording", "all", "--metamorphic", "--db", str(db)]) == 0
    frame = results_frame(db)
    assert set(frame["wording"]) == {0, 1, 2}
    variants = frame[frame["case_key"] != frame["family"]]
    assert len(variants) and variants["case_key"].str.contains("~m:").all()
    table = robustness.consistency_table(frame)
    assert (table.loc["oracle", "consistency"] == 1.0).all()
    assert set(table.loc["oracle"].index) == set(CATEGORIES)
    wordings = robustness.wording_table(frame)
    assert (wordings.loc["oracle", "spread"] == 0.0).all()
    # Re-grading rebuilds each case with its wording and variant: renamed and swapped cases
    # stay graded by the letters their prompt showed.
    summary = regrade(db, GradingSettings())
    assert summary.graded == len(frame) and summary.changed == 0


def test_a_version_1_database_is_migrated_and_resumed(tmp_path):
    db = tmp_path / "old.sqlite"
    assert main(["run", *ARGS, "--db", str(db)]) == 0
    with sqlite3.connect(db) as connection:
        done = connection.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
    # The same rows in a file of the old schema (v1: no wording/family columns).
    old = tmp_path / "v1.sqlite"
    connection = sqlite3.connect(old)
    connection.executescript(_SCHEMA_V1)
    connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    connection.execute("PRAGMA user_version = 1")
    connection.execute(f"ATTACH DATABASE '{db}' AS new")
    columns = [r[1] for r in connection.execute("PRAGMA main.table_info(executions)")]
    names = ", ".join(columns)
    connection.execute("INSERT INTO campaigns SELECT * FROM new.campaigns")
    connection.execute(f"INSERT INTO executions ({names}) SELECT {names} FROM new.executions")
    connection.commit()
    connection.close()
    with Store.open(old) as store:
        rows = store.executions()
    assert len(rows) == done and {r["wording"] for r in rows} == {0}
    assert all(r["family"] == r["case_key"] for r in rows)
    # Resuming with the default wording asks nothing again and stays one campaign.
    assert main(["run", *ARGS, "--db", str(old)]) == 0
    with sqlite3.connect(old) as connection:
        assert connection.execute("SELECT COUNT(*) FROM executions").fetchone()[0] == done
        assert connection.execute("SELECT COUNT(*) FROM campaigns").fetchone()[0] == 1
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION

"""``run --shard I/N`` and ``explaincheck merge`` on real SQLite files: the three shards of the
README walkthrough, merged, equal the unsharded run row for row; differing campaigns are
refused; copies keep one row per execution, a graded row winning over an error."""

from __future__ import annotations

import json
import sqlite3

import pytest

from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.campaign.shard import Shard, parse_shard, shard_plan
from explaincheck.core.cli.main import main
from explaincheck.core.errors import ExplaincheckError

WALKTHROUGH = [
    "--env",
    "frozen_lake",
    "--llm",
    "random",
    "--llm",
    "oracle",
    "--categories",
    "satisfy,bottleneck,best_action",
    "--budget",
    "5",
    "--selection",
    "both",
]
# What differs between two runs of one execution: when and where it ran.
RUN_FIELDS = {"id", "campaign_id", "started_at", "finished_at", "latency", "attempts"}


def rows(db, capsys) -> list[dict]:
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    return sorted(
        ({k: v for k, v in r.items() if k not in RUN_FIELDS} for r in found),
        key=lambda r: (r["case_key"], r["llm"], r["repeat"]),
    )


@pytest.fixture(scope="module")
def walkthrough(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shards")
    assert main(["run", *WALKTHROUGH, "--db", str(folder / "full.sqlite")]) == 0
    for i in (1, 2, 3):
        assert (
            main(["run", *WALKTHROUGH, "--shard", f"{i}/3", "--db", str(folder / f"s{i}.sqlite")])
            == 0
        )
    return folder


def test_three_shards_merged_equal_the_unsharded_run(walkthrough, capsys):
    shards = [walkthrough / f"s{i}.sqlite" for i in (1, 2, 3)]
    sizes = [len(rows(s, capsys)) for s in shards]
    assert sum(sizes) == 48 and max(sizes) - min(sizes) <= 2  # one case = 2 LLMs
    out = walkthrough / "all.sqlite"
    capsys.readouterr()
    assert main(["merge", *map(str, shards), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "merged 3 databases (shards 1/3, 2/3, 3/3)" in said
    assert "48 executions of 48 planned, 0 duplicates dropped" in said
    merged, full = rows(out, capsys), rows(walkthrough / "full.sqlite", capsys)
    assert len(merged) == 48
    assert merged == full  # same cases, prompts, replies, answers, verdicts and reasons
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT planned, status FROM campaigns").fetchall() == [(48, "finished")]


def test_shards_are_disjoint_deterministic_and_whole():
    plan = plan_campaign(
        Campaign("frozen_lake", ("random", "oracle"), ("satisfy", "best_action"), 5, "both")
    )
    parts = [shard_plan(plan, Shard(i, 3)) for i in (1, 2, 3)]
    keys = [{e.key for e in p.executions} for p in parts]
    assert set().union(*keys) == {e.key for e in plan.executions}
    assert sum(map(len, keys)) == plan.total
    for part in parts:  # every LLM of a case stays in its shard
        cases = {e.case.key for e in part.executions}
        assert all(e.case.key not in cases for p in parts if p is not part for e in p.executions)
    assert [e.key for e in shard_plan(plan, Shard(2, 3)).executions] == [
        e.key for e in parts[1].executions
    ]
    assert parse_shard(" 2 / 3 ") == Shard(2, 3)
    for bad in ("0/3", "4/3", "1/0", "a/b", "2"):
        with pytest.raises(ExplaincheckError, match="--shard"):
            parse_shard(bad)


def test_merge_refuses_other_campaigns_and_keeps_one_row_per_execution(walkthrough, capsys):
    other = walkthrough / "other.sqlite"
    budget_4 = ["4" if WALKTHROUGH[i - 1] == "--budget" else a for i, a in enumerate(WALKTHROUGH)]
    assert main(["run", *budget_4, "--shard", "1/3", "--db", str(other)]) == 0
    capsys.readouterr()
    out = walkthrough / "refused.sqlite"
    assert main(["merge", str(walkthrough / "s1.sqlite"), str(other), "--out", str(out)]) == 2
    assert "differ in budget: 5 vs 4" in capsys.readouterr().err
    assert not out.exists()
    # a copy of the whole run with one row turned into an error: the graded row wins
    broken = walkthrough / "broken.sqlite"
    broken.write_bytes((walkthrough / "full.sqlite").read_bytes())
    with sqlite3.connect(broken) as db:
        db.execute("UPDATE executions SET verdict = 'error', reply = NULL WHERE id = 1")
    copies = walkthrough / "copies.sqlite"
    assert (
        main(
            [
                "merge",
                str(broken),
                str(walkthrough / "s2.sqlite"),
                str(walkthrough / "full.sqlite"),
                "--out",
                str(copies),
            ]
        )
        == 0
    )
    said = capsys.readouterr().out
    assert "48 executions of 48 planned, 64 duplicates dropped (1 error rows replaced" in said
    assert rows(copies, capsys) == rows(walkthrough / "full.sqlite", capsys)
    assert main(["merge", str(broken), "--out", str(copies)]) == 2
    assert "exists" in capsys.readouterr().err

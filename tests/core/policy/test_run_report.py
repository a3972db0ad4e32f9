"""``run --policy FILE`` asks the policy categories, keyed by the policy; ``report --policy``
and the LLM policies stored in a results file give the value-loss table."""

from __future__ import annotations

import csv
from pathlib import Path

from explaincheck.core.cli.main import main
from explaincheck.core.store import Store

HAND = Path(__file__).resolve().parents[3] / "docs/examples/policies/frozen_lake_hand.csv"
CATEGORIES = "policy_reach,policy_optimal,policy_better,policy_regret"


def _run(db, policy, *extra) -> int:
    return main(
        ["run", "--env", "frozen_lake", "--llm", "oracle", "--categories", CATEGORIES,
         "--budget", "4", "--db", str(db), "--policy", str(policy), *extra]
    )  # fmt: skip


def test_run_with_a_policy_asks_its_categories_and_resumes(capsys, tmp_path):
    db = tmp_path / "r.sqlite"
    assert _run(db, HAND) == 0
    with Store.open(db, readonly=True) as store:
        rows = store.executions()
    assert {r["category"] for r in rows} == set(CATEGORIES.split(","))
    assert all(r["verdict"] == "pass" for r in rows)  # graded against the induced chain
    assert _run(db, HAND) == 0
    assert "resuming: 16 of 16 already stored" in capsys.readouterr().err
    other = tmp_path / "other.csv"
    other.write_text(HAND.read_text().replace("0,0,right", "0,0,down"))
    assert _run(db, other) == 0  # another policy: another campaign, asked afresh
    with Store.open(db, readonly=True) as store:
        assert len(store.campaigns()) == 2


def test_run_with_a_bad_policy_is_one_line(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("r,c,action\n0,0,fly\n")
    assert _run(tmp_path / "r.sqlite", bad) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "row 2: unknown action 'fly'" in err[0]


def test_report_value_loss_table(capsys, tmp_path):
    db = tmp_path / "p.sqlite"
    for llm in ("random", "oracle"):
        assert main(["policy", "--env", "frozen_lake", "--llm", llm, "--db", str(db)]) == 0
    out = tmp_path / "report"
    assert main(["report", "--db", str(db), "--out", str(out), "--policy", str(HAND)]) == 0
    with open(out / "policy_value_loss.csv") as handle:
        table = {row["policy"]: row for row in csv.DictReader(handle)}
    assert table["frozen_lake_hand.csv"]["exact"] == "7467/11441"
    assert table["LLM random"]["exact"] == "476875/589033"
    assert table["LLM oracle"]["exact"] == "0"
    bad = tmp_path / "bad.csv"
    bad.write_text("x,action\n1,up\n")
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--out", str(out), "--policy", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "fits no environment" in err[0]

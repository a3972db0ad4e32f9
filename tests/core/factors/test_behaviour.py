"""``run --behavioural`` end to end on frozen_lake with the oracle answerer: every probe is
stored and read back (a second run asks nothing new), and the factor report reads
the database alone."""

from __future__ import annotations

import sqlite3

from explaincheck.core.cli.main import main
from explaincheck.core.factors.behaviour import BASELINE
from explaincheck.core.factors.report import markdown, summary


def test_behavioural_run_stores_one_probe_per_factor_and_reports(tmp_path, capsys):
    db = tmp_path / "factors.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "oracle", "--categories", "factors"]
    assert main([*args, "--budget", "2", "--db", str(db), "--behavioural"]) == 0
    with sqlite3.connect(db) as connection:
        probes = connection.execute(
            "SELECT exec_key, probe, action FROM factor_behaviour ORDER BY exec_key, probe"
        ).fetchall()
    cases = {key for key, _, _ in probes}
    assert len(cases) == 2
    per_case = {key: {p for k, p, _ in probes if k == key} for key in cases}
    for names in per_case.values():  # 5 model factors + baseline, + row/column where they move
        assert BASELINE in names and {"slippery_ice", "hole_1_1", "hole_3_0"} <= names
    assert all(action is not None for _, _, action in probes)
    found = summary(str(db))["frozen_lake / oracle"]
    assert found["pass"] == 1.0 and found["precision"] == found["best_precision"]
    assert found["uncited_outranks"] == 0.0
    assert found["views"] == 2 * 7 and 0.0 <= found["does_true"] <= 1.0
    # Running again probes nothing new (resume) and leaves the rows as they are.
    assert main([*args, "--budget", "2", "--db", str(db), "--behavioural"]) == 0
    with sqlite3.connect(db) as connection:
        again = connection.execute("SELECT COUNT(*) FROM factor_behaviour").fetchone()[0]
    assert again == len(probes)
    assert "| frozen_lake / oracle | 2 | 1.00 |" in markdown(summary(str(db)))

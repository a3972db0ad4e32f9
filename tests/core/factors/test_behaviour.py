"""``run --behavioural`` end to end on frozen_lake with the oracle answerer: every probe
(necessity and sufficiency, three trials each) is stored and read back (a second run asks
nothing new), and the factor report reads the database alone."""

from __future__ import annotations

import sqlite3

from explaincheck.core.analysis.factor_report import markdown, summary
from explaincheck.core.cli.main import main
from explaincheck.core.taxonomy.factor_probes import BASELINE, SUFFICIENCY_MARK, TRIALS
from explaincheck.core.taxonomy.probes import trial_name


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
    model = ("slippery_ice", "hole_1_1", "hole_1_3", "hole_2_3", "hole_3_0")
    for names in per_case.values():  # 5 model factors + baseline, + row/column where they move
        for trial in range(TRIALS):
            assert trial_name(BASELINE, trial) in names
            for factor in model:
                assert trial_name(factor, trial) in names  # necessity
            for factor in (*model, "row", "column"):
                assert trial_name(factor + SUFFICIENCY_MARK, trial) in names
    assert all(action is not None for _, _, action in probes)
    found = summary(str(db))["frozen_lake / oracle"]
    assert found["pass"] == 1.0 and found["precision"] == found["best_precision"]
    assert found["uncited_outranks"] == 0.0 and found["passes"] == 1.0
    assert found["views"] == 2 * 7 and 0.0 <= found["does_true"] <= 1.0
    # The oracle answers the same every trial, so PN and PS are 0 or 1 per view. With only one
    # model factor kept, frozen_lake's actions tie: seed 002's PS of a tie is at most 1/|tie|,
    # so no factor is sufficient (a tie used to count as sufficient). The oracle names its
    # optimal scheduler's choice of the tie (the best-action answer that loses nothing as a
    # policy), which is the factual action in 2 of the 14 views: "keeps" disagrees with the
    # truth there only.
    assert found["sufficiency_views"] == 2 * 7 and found["keeps_sufficient"] == 12 / 14
    assert found["ps"] == 2 / 14 and found["pn"] is not None and 0.0 <= found["pn"] <= 1.0
    # Running again probes nothing new (resume) and leaves the rows as they are.
    assert main([*args, "--budget", "2", "--db", str(db), "--behavioural"]) == 0
    with sqlite3.connect(db) as connection:
        again = connection.execute("SELECT COUNT(*) FROM factor_behaviour").fetchone()[0]
    assert again == len(probes)
    text = markdown(summary(str(db)))
    assert "| frozen_lake / oracle | 2 | 0 | 1.00 | 0 | necessity |" in text
    assert "| | | | | sufficiency |" in text

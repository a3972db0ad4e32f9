"""A reference explainer with a known flaw uses the names the prompt uses (issue 34 point 21):
a tie under a metamorphic rename (states M and N) once got the hard-coded letter K, so the
explainer was graded ``invalid``; a reference explainer must never be invalid."""

from __future__ import annotations

import sqlite3

from explaincheck.core.cli.main import main


def test_a_known_flaw_is_never_invalid_under_a_rename(tmp_path):
    db = tmp_path / "r.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "flaw:myopic:2", "--categories", "safer"]
    args += ["--wording", "all", "--metamorphic", "--budget", "5", "--db", str(db)]
    assert main(args) == 0
    with sqlite3.connect(db) as connection:
        verdicts = dict(
            connection.execute("SELECT verdict, COUNT(*) FROM executions GROUP BY verdict")
        )
        renamed = connection.execute(
            "SELECT COUNT(*) FROM executions WHERE case_key LIKE '%~m:rename%'"
        ).fetchone()[0]
    assert renamed > 0
    assert "invalid" not in verdicts, verdicts  # was: 15 invalid ("K" is not one of M, N)

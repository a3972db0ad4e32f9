"""``bench run`` asks the frozen set through explaincheck's backends into a results file that
the other commands read; its verdicts are ``bench grade``'s on the same replies."""

from __future__ import annotations

import json
from pathlib import Path

from explaincheck.core.bench.grading import bench_table
from explaincheck.core.bench.questions import read_set
from explaincheck.core.cli.main import main
from explaincheck.core.store import Store


def test_bench_run_stores_the_sets_questions_and_grades_as_bench_grade(tmp_path, capsys):
    folder, db = tmp_path / "set", tmp_path / "bench.sqlite"
    assert (
        main(
            ["bench", "export", "--out", str(folder), "--env", "wolf_goat_cabbage", "--budget", "1"]
        )
        == 0
    )
    bench = read_set(folder)
    run = ["bench", "run", str(folder), "--llm", "oracle", "--llm", "random", "--db", str(db)]
    assert main(run) == 0
    with Store.open(db, create=False) as store:
        rows = list(store.iter_stored())
        (campaign,) = store.campaigns()
    assert len(rows) == 2 * len(bench.questions)
    asked = {f"{r.environment}/{r.case_key}" for r in rows}
    assert asked == {q.id for q in bench.questions}
    prompts = {q.id: q.prompt for q in bench.questions}
    assert all(r.prompt == prompts[f"{r.environment}/{r.case_key}"] for r in rows)
    assert all(r.verdict == "pass" for r in rows if r.llm == "oracle")
    assert campaign.settings["bench"]["sha256"] == bench.manifest["sha256"]
    # through the one run sequence (workspace.campaign.run_campaign): it records the run options
    assert campaign.settings["run_options"]["db"] == str(db)
    random_rows = {f"{r.environment}/{r.case_key}": r for r in rows if r.llm == "random"}
    table = bench_table(bench, {qid: r.reply for qid, r in random_rows.items()})
    assert table["verdicts"] == {qid: r.verdict for qid, r in random_rows.items()}
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(rows)


def test_only_the_run_sequence_finishes_a_run():
    """``finish_run`` has one caller, the run sequence; the bench only plans."""
    core = Path(__file__).resolve().parents[3] / "core"
    callers = {
        p.relative_to(core).as_posix()
        for p in core.rglob("*.py")
        if "finish_run(" in p.read_text(encoding="utf-8")
    }
    assert callers == {"campaign/finish.py", "workspace/campaign.py"}

"""ResultsWorkspace: the Results tab without Qt, over a real results file and live records:
filters (verdict incl. uncertain, category, LLM, search, Failures only, Flaky only), the chosen
case (kept across a re-grade), live rows joined with stored ones, and an older file read
through a migrated copy."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import replace

import pytest

from explaincheck.core.store import Store, results_frame, rows_frame
from explaincheck.core.store.records import ExecutionRecord, StoredExecution
from explaincheck.core.workspace.presentation.results import ResultsWorkspace
from explaincheck.core.workspace.presentation.results.case_text import NO_ORACLE, case_text
from explaincheck.core.workspace.presentation.results.opening import model_to_open
from explaincheck.core.workspace.presentation.results.rows import execution_of, row_dict


@pytest.fixture(scope="module")
def results_file(tmp_path_factory):
    """A real file: random and oracle on frozen_lake, satisfy and best_action, 3 cases each."""
    db = tmp_path_factory.mktemp("results") / "results.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "random", "--llm", "oracle", "--budget", "3"]
    args += ["--categories", "satisfy,best_action", "--db", str(db)]
    code = f"from explaincheck.core.cli.main import main; raise SystemExit(main({args!r}))"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return db


def listened(workspace: ResultsWorkspace) -> list[tuple]:
    heard: list[tuple] = []
    workspace.reset.connect(lambda: heard.append(("reset",)))
    workspace.added.connect(lambda first, count: heard.append(("added", first, count)))
    workspace.filtered.connect(lambda filters: heard.append(("filtered", filters)))
    workspace.chosen.connect(lambda execution: heard.append(("chosen", execution)))
    return heard


def loaded(db) -> ResultsWorkspace:
    workspace = ResultsWorkspace()
    asyncio.run(workspace.load(str(db)))
    return workspace


def test_a_file_is_read_as_stored_executions(results_file):
    workspace = ResultsWorkspace()
    heard = listened(workspace)
    asyncio.run(workspace.load(str(results_file)))
    with Store.open(results_file, readonly=True) as store:
        stored = store.stored_executions()
    assert heard == [("reset",)]
    assert workspace.executions == stored and len(stored) == 12
    assert all(isinstance(e, StoredExecution) and e.id > 0 for e in workspace.executions)
    assert workspace.db_path == str(results_file)
    assert workspace.llms() == ["oracle", "random"]
    assert workspace.choices("category") == ["best_action", "satisfy"]
    failed = sum(1 for e in stored if e.verdict in ("fail", "invalid"))
    assert workspace.count_text() == f"12 of 12 shown · {failed} not passed"
    # the readers' dict view is the frame the CLI's report reads from the file
    frame = rows_frame(workspace.row_dicts())
    assert frame.equals(results_frame(results_file))
    assert model_to_open(workspace.executions) == "frozen_lake"


def test_a_missing_file_is_refused_and_the_rows_stay(results_file, tmp_path):
    workspace = loaded(results_file)
    with pytest.raises(FileNotFoundError):
        asyncio.run(workspace.load(str(tmp_path / "none.sqlite")))
    assert len(workspace.executions) == 12 and workspace.db_path == str(results_file)


def test_filters_by_column_failures_and_search(results_file):
    workspace = loaded(results_file)
    heard = listened(workspace)
    workspace.set_equal("llm", "oracle")
    assert heard[-1][0] == "filtered" and heard[-1][1].equals == {"llm": "oracle"}
    shown = workspace.shown()
    assert len(shown) == workspace.shown_count == 6
    assert {e.llm for e in shown} == {"oracle"} and {e.verdict for e in shown} == {"pass"}
    workspace.set_failures_only(True)  # the oracle never fails
    assert workspace.shown() == [] and workspace.count_text().startswith("0 of 12 shown")
    workspace.set_equal("llm", "")
    not_passed = [e for e in workspace.executions if e.verdict in ("fail", "invalid")]
    assert workspace.shown() == not_passed and workspace.shown_count == len(not_passed)
    workspace.set_failures_only(False)
    workspace.set_equal("category", "best_action")
    workspace.set_text("  RANDOM ")  # case and spaces do not matter; the LLM is searched
    assert {(e.llm, e.category) for e in workspace.shown()} == {("random", "best_action")}
    assert workspace.shown_count == 3
    count = len(heard)
    workspace.set_text("random")  # the same filters again: no event
    assert len(heard) == count
    with pytest.raises(KeyError):
        workspace.set_equal("reply", "x")


def test_an_uncertain_verdict_is_a_choice_and_no_failure(results_file):
    workspace = loaded(results_file)
    uncertain = replace(workspace.executions[0], verdict="uncertain")
    workspace.append([uncertain])
    assert "uncertain" in workspace.choices("verdict")
    workspace.set_equal("verdict", "uncertain")
    assert workspace.shown() == [uncertain]
    workspace.set_equal("verdict", "")
    workspace.set_failures_only(True)
    assert uncertain not in workspace.shown()


def record(**changes) -> ExecutionRecord:
    values = dict(
        exec_key="live-1",
        campaign_id=1,
        environment="frozen_lake",
        model_hash="abc",
        llm="random",
        category="satisfy",
        dimension="state",
        selection="prioritized",
        case_index=0,
        case_key="satisfy/prioritized/0/5~w1~m:swap",
        positive=None,
        states=[5],
        valuations=[{"x": 1}],
        delta=0.9,
        repeat=0,
        prompt="What is the probability?",
        schema={"type": "object"},
        options={},
        reply='{"probability": 0.9}',
        verdict="fail",
        reason="|0.9 - 0.5| > 0.05",
        grading={},
        started_at="",
        finished_at="",
        answer={"probability": 0.9},
        expected={"probability": 0.5},
    )
    values.update(changes)
    return ExecutionRecord(**values)


def test_live_records_join_the_rows_as_stored_executions(results_file):
    workspace = loaded(results_file)
    dicts = workspace.row_dicts()
    heard = listened(workspace)
    workspace.set_equal("llm", "random")
    before = workspace.shown_count
    workspace.append([record(), record(exec_key="live-2", llm="oracle", verdict="pass")])
    assert heard[-1] == ("added", 12, 2)
    live = workspace.executions[12]
    assert isinstance(live, StoredExecution) and live.id == 0
    assert (live.wording, live.family) == (1, "satisfy/prioritized/0/5~w1")
    assert live.record == record()
    assert workspace.shown_count == before + 1  # the oracle's row is filtered out
    assert workspace.count_text().endswith(f"{workspace.failed_count} not passed")
    assert workspace.row_dicts() is dicts and dicts[12] == row_dict(live)
    assert dicts[12]["verdict"] == "fail" and dicts[12]["states"] == [5]
    workspace.append([])
    assert heard[-1] == ("added", 12, 2)


def test_a_dict_row_is_made_a_stored_execution_with_empty_fields():
    made = execution_of({"llm": "random", "states": [3], "verdict": "pass", "delta": None})
    assert made.llm == "random" and made.states == [3] and made.delta == 0.0
    assert made.case_key == "" and made.schema == {} and made.positive is None
    assert made.attempts == 1 and made.reply is None


def test_the_chosen_case_is_kept_across_a_regrade(results_file, tmp_path):
    db = tmp_path / "regraded.sqlite"
    shutil.copy(results_file, db)
    workspace = loaded(db)
    heard = listened(workspace)
    satisfy = next(e for e in workspace.executions if e.category == "satisfy")
    workspace.choose(satisfy)
    assert heard == [("chosen", satisfy)] and workspace.chosen_case is satisfy
    summary = asyncio.run(workspace.regrade("half", 0.05))
    assert summary.graded == 12
    assert ("reset",) in heard and heard[-1][0] == "chosen"
    again = workspace.chosen_case
    assert again is not None and again is not satisfy and again.id == satisfy.id
    assert again.grading["satisfy_rule"] == "half"
    with Store.open(db, readonly=True) as store:
        assert store.stored_executions(row_id=satisfy.id)[0] == again


def test_a_chosen_live_row_is_found_again_when_the_file_is_read(results_file):
    with Store.open(results_file, readonly=True) as store:
        stored = store.stored_executions()[4]
    workspace = ResultsWorkspace()
    workspace.clear(str(results_file))
    workspace.append([stored.record])  # as the runner hands it over
    live = workspace.executions[0]
    workspace.choose(live)
    asyncio.run(workspace.load(str(results_file)))
    assert workspace.chosen_case == stored and workspace.chosen_case.id > 0
    workspace.clear()
    assert workspace.chosen_case is None and workspace.executions == []


def test_repeats_group_with_agreement_stability_and_flaky_only():
    workspace = ResultsWorkspace()
    rows = []
    for case, answers, verdicts in (
        ("c1", [0.5, 0.5, 0.9], ["pass", "pass", "fail"]),
        ("c2", [0.2, 0.21, 0.2], ["fail", "fail", "fail"]),
    ):
        for repeat, (answer, verdict) in enumerate(zip(answers, verdicts, strict=True)):
            rows.append(
                record(
                    exec_key=f"{case}-{repeat}",
                    case_key=case,
                    states=[1 if case == "c1" else 2],
                    repeat=2 - repeat,  # stored out of repeat order: grouped by repeat
                    verdict=verdict,
                    answer={"probability": answer},
                )
            )
    workspace.append(rows)
    groups = {g.row.case_key: g for g in workspace.groups()}
    flaky, stable = groups["c1"], groups["c2"]
    assert (flaky.k, flaky.passed, flaky.stability, flaky.agreement) == (3, 2, "flaky", False)
    assert flaky.answers == ("0.9", "0.5", "0.5") and flaky.row.repeat == 0
    assert (stable.passed, stable.stability, stable.agreement) == (0, "stable-fail", True)
    workspace.set_flaky_only(True)
    assert [g.row.case_key for g in workspace.groups()] == ["c1"]
    assert workspace.shown_count == 6  # Flaky only groups; the table's rows are not filtered
    workspace.set_failures_only(True)  # the groups are of the shown rows
    assert [(g.row.case_key, g.k) for g in workspace.groups()] == []
    workspace.set_flaky_only(False)
    assert sorted((g.row.case_key, g.k) for g in workspace.groups()) == [("c1", 1), ("c2", 3)]


def test_the_case_text_of_an_execution(results_file):
    workspace = loaded(results_file)
    execution = next(e for e in workspace.executions if e.category == "satisfy")
    text = case_text(execution)
    assert text.header.startswith(f"{execution.verdict.upper()} · {execution.llm} · satisfy")
    assert f"state(s) {execution.states[0]}" in text.header
    assert text.prompt == execution.prompt and text.oracle == NO_ORACLE
    assert '"probability"' in text.answers and "|error|" in text.answers


def test_a_v5_file_is_read_through_a_migrated_copy(results_file, tmp_path):
    old = tmp_path / "v5.sqlite"
    shutil.copy(results_file, old)
    with sqlite3.connect(old) as db:
        for table in ("executions", "replies"):
            db.execute(f"ALTER TABLE {table} DROP COLUMN cached_prompt_tokens")
        db.execute("PRAGMA user_version = 5")
    workspace = loaded(old)
    assert len(workspace.executions) == 12
    assert all(e.cached_prompt_tokens is None for e in workspace.executions)
    assert [e.verdict for e in workspace.executions] == [
        e.verdict for e in loaded(results_file).executions
    ]
    with sqlite3.connect(old) as untouched:  # reading wrote nothing
        assert untouched.execute("PRAGMA user_version").fetchone()[0] == 5


def test_a_file_of_another_model_opens_its_model_or_says_so(results_file, tmp_path):
    """Issue 50: a file tested on another model left the old one in the graph and the
    inspector while the Report showed the file's results."""
    from explaincheck.core.environments.registry import resolve
    from explaincheck.core.oracle import compute_oracle
    from explaincheck.core.workspace.presentation.results.opening import file_model

    rows = loaded(results_file).executions
    lake = compute_oracle(resolve("frozen_lake").request())
    water = compute_oracle(resolve("water_jug").request())
    assert rows[0].model_hash == lake.model.content_hash
    kept = file_model(rows, lake, "frozen_lake", "Frozen Lake", "results.sqlite")
    assert kept.open is None and kept.said == ""  # graded on the open model
    opened = file_model(rows, water, "water_jug", "Water Jug", "results.sqlite")
    assert opened.open == "frozen_lake"
    said = "Opened frozen_lake, the model results.sqlite was tested on (Water Jug was open)"
    assert opened.said == said
    assert file_model(rows, None, None, "", "r.sqlite").open == "frozen_lake"  # none open
    assert file_model(rows, None, "frozen_lake", "Frozen Lake", "r").open is None  # building it
    # a PRISM file that is not on this machine: named, the open model kept
    gone = [replace(e, environment=str(tmp_path / "gone" / "model.prism")) for e in rows]
    named = file_model(gone, water, "water_jug", "Water Jug", "r.sqlite")
    assert named.open is None
    assert named.said == (
        "r.sqlite was tested on gone, which cannot be opened here: the graph and the inspector"
        " show Water Jug, another model"
    )
    assert file_model([], water, "water_jug", "Water Jug", "r.sqlite").open is None
    # a policy attached to the open model: its hash names the policy, the rows' do not
    from types import SimpleNamespace

    with_policy = SimpleNamespace(
        model=SimpleNamespace(content_hash="lake+policy"), base_hash=lake.model.content_hash
    )
    assert file_model(rows, with_policy, "frozen_lake", "Frozen Lake", "r").open is None
    other_policy = [replace(e, model_hash="lake+another policy") for e in rows]
    assert file_model(other_policy, with_policy, "frozen_lake", "Frozen Lake", "r").open is None


def test_the_case_view_shows_the_prompts_question_and_the_states_by_their_letters(results_file):
    """The case view's texts (issue 50): the question a prompt ends with, and the oracle's
    facts four lines a state, each named by the letter the prompt gave it."""
    from explaincheck.core.environments.registry import resolve
    from explaincheck.core.oracle import compute_oracle
    from explaincheck.core.workspace.presentation.results.case_text import (
        oracle_lines,
        question_of,
        state_letters,
    )

    prompt = "Task.\n\nState K: here\nState L: there\n\nActions:\n- up\n\nIs K safer than L?"
    assert question_of(prompt + "\nRespond only with a JSON object.") == (
        "Is K safer than L?\nRespond only with a JSON object."
    )
    assert question_of("Task.\n\nIs it?\n\nRespond only with yes.") == (
        "Is it?\n\nRespond only with yes."
    )
    assert question_of("One paragraph only?") == "One paragraph only?"
    assert state_letters(prompt, 2) == ["K", "L"] and state_letters(prompt, 3) == []
    lake = compute_oracle(resolve("frozen_lake").request())
    text = oracle_lines(lake, [13, 12], {"r": "row", "c": "column"}, ["K", "L"]).splitlines()
    assert text[0] == "K = state 13 (row (r) = 3, column (c) = 2): bottleneck"
    assert text[1].startswith("  V = 0.9412   D = 0.03571   C_B = ")
    assert text[2].startswith("  Q: down 0.9412, ") and text[3] == "  A* = {down}   A° = {left}"
    assert text[4] == "L = state 12 (row (r) = 1, column (c) = 3): dead end, unsafe"  # a hole
    assert len(text) == 6
    execution = next(e for e in loaded(results_file).executions if e.category == "best_action")
    shown = case_text(execution, lake)
    assert shown.question.startswith("Which action") or "?" in shown.question
    assert shown.question.endswith("}.") and shown.question in shown.prompt

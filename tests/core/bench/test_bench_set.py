"""``bench export`` / ``bench grade`` on the default set: reproducible, ≥ 1,000 questions over
every built-in environment, paper category and selection; graded by the campaign's grader."""

from __future__ import annotations

import json

import pytest

from explaincheck.core.bench.grading import Oracles, bench_table, random_reply
from explaincheck.core.bench.questions import cached_default_set, read_set
from explaincheck.core.cli.main import main
from explaincheck.core.environments.registry import OWN_IDS
from explaincheck.core.taxonomy.registry import PAPER_CATEGORIES


@pytest.fixture(scope="module")
def default_set():
    return cached_default_set()


def expected_reply(question) -> str:
    """A reply built from the file's own ``expected`` field (first of a list; ranking groups
    flattened), as a tool outside explaincheck would."""
    ((key, value),) = question.expected.items()
    if isinstance(value, list):
        value = [a for g in value for a in g] if value and isinstance(value[0], list) else value[0]
    return json.dumps({key: value})


def write_answers(path, replies: dict[str, str]) -> None:
    path.write_text("".join(json.dumps({"id": i, "reply": r}) + "\n" for i, r in replies.items()))


def test_two_exports_give_one_sha256_and_the_set_covers_everything(default_set, tmp_path, capsys):
    assert main(["bench", "export", "--out", str(tmp_path / "again")]) == 0
    again = read_set(tmp_path / "again")
    assert again.manifest["sha256"] == default_set.manifest["sha256"]
    first = (default_set_folder(default_set) / "questions.jsonl").read_bytes()
    assert (tmp_path / "again" / "questions.jsonl").read_bytes() == first
    assert default_set.manifest["sha256"] in capsys.readouterr().out
    questions = default_set.questions
    assert len(questions) >= 1000 and default_set.manifest["questions"] == len(questions)
    assert {q.environment for q in questions} == set(OWN_IDS)
    assert {q.category for q in questions} == set(PAPER_CATEGORIES)
    assert {q.selection for q in questions} == {"prioritized", "random"}
    assert len({q.id for q in questions}) == len(questions)


def default_set_folder(bench):
    from explaincheck.core.bench.questions import NAME, VERSION
    from explaincheck.core.paths import cache_dir
    from explaincheck.core.store import software_version

    return cache_dir() / "bench" / f"{NAME}-v{VERSION}-{software_version()}"


def test_the_schema_sent_keeps_every_bound(default_set):
    ranking = next(q for q in default_set.questions if q.category == "ranking")
    array = ranking.schema["properties"]["ranking"]
    actions = array["items"]["enum"]
    assert array["minItems"] == array["maxItems"] == len(actions) and array["uniqueItems"]
    satisfy = next(q for q in default_set.questions if q.category == "satisfy")
    assert satisfy.schema["properties"]["probability"] | {} == {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
    }
    assert '"' + ranking.schema["required"][0] + '"' in ranking.prompt


def test_expected_answers_pass_every_category_and_random_replies_give_the_random_row(
    default_set, tmp_path, capsys
):
    folder = default_set_folder(default_set)
    write_answers(
        tmp_path / "expected.jsonl", {q.id: expected_reply(q) for q in default_set.questions}
    )
    assert main(["bench", "grade", str(folder), str(tmp_path / "expected.jsonl"), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    rows = {r["category"]: r for r in table["categories"]}
    assert set(rows) == {*PAPER_CATEGORIES, "all"}
    assert all(r["pass_rate"] == 1.0 and r["oracle_pass_rate"] == 1.0 for r in rows.values())
    assert table["answered"] == table["questions"] == len(default_set.questions)
    oracles = Oracles(default_set)
    replies = {q.id: random_reply(q, oracles) for q in default_set.questions}
    write_answers(tmp_path / "random.jsonl", replies)
    assert main(["bench", "grade", str(folder), str(tmp_path / "random.jsonl"), "--json"]) == 0
    random_table = json.loads(capsys.readouterr().out)
    for row in random_table["categories"]:
        assert (
            row["pass_rate"] == row["random_pass_rate"] == rows[row["category"]]["random_pass_rate"]
        )
        assert 0 < row["pass_rate"] < 1  # a random answerer neither always passes nor fails
    # the text table: the same random row
    assert main(["bench", "grade", str(folder), str(tmp_path / "random.jsonl")]) == 0
    text = capsys.readouterr().out
    line = next(ln for ln in text.splitlines() if ln.startswith("all "))
    overall = random_table["categories"][-1]
    assert f"{overall['pass_rate']:.1%}" in line and f"{overall['random_pass_rate']:.1%}" in line


def test_grading_is_the_campaigns(default_set):
    """A verdict of bench grade is the runner's grader's on the same case and oracle."""
    from explaincheck.core.taxonomy.grading import grade_reply

    oracles = Oracles(default_set)
    picks = [q for q in default_set.questions if q.environment == "frozen_lake"][:30]
    replies = {q.id: random_reply(q, oracles) for q in picks}
    table = bench_table(default_set, replies)
    for q in picks:
        direct = grade_reply(q.case(), replies[q.id], oracles("frozen_lake"))
        assert table["verdicts"][q.id] == direct.verdict


def test_unknown_ids_and_a_changed_file_are_refused_in_one_line(default_set, tmp_path, capsys):
    folder = default_set_folder(default_set)
    write_answers(tmp_path / "a.jsonl", {"nowhere/1": "{}"})
    assert main(["bench", "grade", str(folder), str(tmp_path / "a.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown question id 'nowhere/1'" in err and len(err.splitlines()) == 1
    changed = tmp_path / "changed"
    changed.mkdir()
    (changed / "manifest.json").write_text((folder / "manifest.json").read_text())
    data = (folder / "questions.jsonl").read_text().replace('"satisfy"', '"safer"', 1)
    (changed / "questions.jsonl").write_text(data)
    write_answers(tmp_path / "b.jsonl", {})
    assert main(["bench", "grade", str(changed), str(tmp_path / "b.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert "sha256 does not match the manifest" in err and len(err.splitlines()) == 1
    (tmp_path / "bad.jsonl").write_text("not json\n")
    assert main(["bench", "grade", str(folder), str(tmp_path / "bad.jsonl")]) == 2
    assert "bad.jsonl:1:1: not valid JSON (expecting value)" in capsys.readouterr().err


def test_questions_of_categories_that_measure_nothing_are_left_out_of_the_rows(default_set):
    """Issue 51.3: subset_dead_end measures nothing on frozen_lake, wolf_goat_cabbage and dam
    (every subset holds a failure the words give away); its questions there are graded and
    counted, but out of the rows and of "all" unless asked for."""
    degenerate = {"frozen_lake", "wolf_goat_cabbage", "dam"}
    for env in degenerate:
        assert "subset_dead_end" in default_set.environment(env)["degenerate"]
    oracles = Oracles(default_set)
    replies = {q.id: random_reply(q, oracles) for q in default_set.questions}
    table = bench_table(default_set, replies)
    rows = {r["category"]: r for r in table["categories"]}
    left_out = [
        q for q in default_set.questions
        if q.category == "subset_dead_end" and q.environment in degenerate
    ]  # fmt: skip
    every = sum(q.category == "subset_dead_end" for q in default_set.questions)
    assert rows["subset_dead_end"]["degenerate"] == len(left_out) > 0
    assert rows["subset_dead_end"]["answered"] == every - len(left_out)
    assert rows["all"]["answered"] == len(default_set.questions) - len(left_out)
    assert set(table["degenerate"]) == degenerate
    assert all("subset_dead_end" in cats for cats in table["degenerate"].values())
    counted = bench_table(default_set, replies, include_degenerate=True)
    again = {r["category"]: r for r in counted["categories"]}
    assert again["subset_dead_end"]["answered"] == every and again["all"]["degenerate"] == 0

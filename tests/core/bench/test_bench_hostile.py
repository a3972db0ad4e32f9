"""The frozen benchmark and ``import-inspect`` against hostile files (issue 52 points 2, 4-7, 10):
every bad question set, answers file or Inspect log is one line on stderr and exit status 2,
never a traceback, a question counted twice, or memory filled by a zip bomb. Hostile bytes are
written to files and never printed (the assertions quote only ASCII)."""

from __future__ import annotations

import json

import pytest
from hostile_sets import DEEP, answers_to, refused, small_set, tampered, with_line


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return small_set(tmp_path_factory.mktemp("bench") / "set")


def test_a_duplicated_question_is_one_line_in_grade_and_run(bench, tmp_path, capsys):
    """Line 1 repeated, the manifest made consistent: counted twice before (41 of 41)."""
    dup = tampered(bench, tmp_path / "dup", lambda lines: [lines[0], *lines])
    answers = answers_to(bench, tmp_path / "answers.jsonl")
    line = refused(capsys, "bench", "grade", str(dup), str(answers))
    assert line.endswith("appears twice (first on line 1); each question is asked and counted once")
    assert "questions.jsonl:2: question id 'frozen_lake/" in line
    db = tmp_path / "r.sqlite"
    assert "appears twice" in refused(
        capsys, "bench", "run", str(dup), "--llm", "random", "--db", str(db)
    )
    assert not db.exists()


@pytest.mark.parametrize("command", ["grade", "run"])
def test_a_deeply_nested_or_non_utf8_question_line_is_one_line(bench, tmp_path, capsys, command):
    deep = tampered(bench, tmp_path / "deep", lambda lines: [DEEP + b"\n", *lines[1:]])
    inner = tampered(
        bench,
        tmp_path / "inner",
        with_line(lambda line: line.replace(b'"expected":', b'"x":' + DEEP + b',"expected":')),
    )
    binary = tampered(
        bench,
        tmp_path / "binary",
        with_line(lambda line: line.replace(b"frozen", b"fr\xffozen", 1)),
    )
    answers = answers_to(bench, tmp_path / "answers.jsonl")
    rest = (
        [str(answers)]
        if command == "grade"
        else ["--llm", "random", "--db", str(tmp_path / "r.sqlite")]
    )
    for folder in (deep, inner):
        line = refused(capsys, "bench", command, str(folder), *rest)
        assert line.endswith("questions.jsonl:1: nested too deeply (more than 64 levels)")
    line = refused(capsys, "bench", command, str(binary), *rest)
    assert line.endswith("questions.jsonl:1: not UTF-8 text (byte 0xff at column 92)")


def test_a_nan_delta_and_wrong_field_types_are_named(bench, tmp_path, capsys):
    answers = answers_to(bench, tmp_path / "answers.jsonl")
    cases = {
        "nan": (b'"delta":', b'"delta":NaN,"was":', "field 'delta': NaN is not a number JSON has"),
        "huge": (b'"delta":', b'"delta":1e999,"was":', "field 'delta': 1e999 is not a number"),
        "states": (
            b'"states":[',
            b'"states":"3","was":[',
            "field 'states': expected a list, got a string",
        ),
        "state": (
            b'"states":[',
            b'"states":[true,',
            "field 'states': item 1: expected an integer, got true",
        ),
        "category": (
            b'"category":"',
            b'"category":"nope","was":"',
            "field 'category': unknown category 'nope'",
        ),
        "grading": (b'"grading":{', b'"grading":{"extra":1,', "field 'grading': want satisfy_rule"),
    }
    for name, (old, new, said) in cases.items():
        folder = tampered(
            bench,
            tmp_path / name,
            with_line(lambda line, old=old, new=new: line.replace(old, new, 1)),
        )
        line = refused(capsys, "bench", "grade", str(folder), str(answers))
        assert f"questions.jsonl:1: {said}" in line, line
    missing = tampered(
        bench,
        tmp_path / "missing",
        with_line(
            lambda line: (
                json.dumps({k: v for k, v in json.loads(line).items() if k != "prompt"}).encode()
                + b"\n"
            )
        ),
    )
    assert refused(capsys, "bench", "grade", str(missing), str(answers)).endswith(
        "questions.jsonl:1: missing field 'prompt'"
    )


def test_a_bad_manifest_is_named_by_field(bench, tmp_path, capsys):
    answers = answers_to(bench, tmp_path / "answers.jsonl")
    folder = tampered(bench, tmp_path / "m", lambda lines: lines)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["made_with"]["environments"] = "frozen_lake"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert (
        "manifest.json: field 'made_with': field 'environments': expected a list, got a string"
        in refused(capsys, "bench", "grade", str(folder), str(answers))
    )
    (folder / "manifest.json").write_bytes(b'{"name": ' + DEEP + b"}")
    assert refused(capsys, "bench", "grade", str(folder), str(answers)).endswith(
        "manifest.json: nested too deeply (more than 64 levels)"
    )


def test_bad_answers_files_are_one_line(bench, tmp_path, capsys):
    cases = {
        "empty.jsonl": (
            b"",
            'empty.jsonl: no answer in it (want one {"id": ..., "reply": ...} per line)',
        ),
        "blank.jsonl": (b"\n\n  \n", "blank.jsonl: no answer in it"),
        "deep.jsonl": (
            b'{"id": "x", "reply": ' + DEEP + b"}\n",
            "deep.jsonl:1: nested too deeply (more than 64 levels)",
        ),
        "binary.jsonl": (
            b'{"id": "x", "reply": "\xff"}\n',
            "binary.jsonl:1: not UTF-8 text (byte 0xff at column 23)",
        ),
        "id.jsonl": (
            b'{"id": 3, "reply": "x"}\n',
            "id.jsonl:1: field 'id': expected a string, got an integer",
        ),
        "list.jsonl": (
            b"[1, 2]\n",
            'list.jsonl:1: expected an answer {"id": ..., "reply": ...}, got a list',
        ),
        "nan.jsonl": (
            b'{"id": "x", "reply": {"probability": NaN}}\n',
            "nan.jsonl:1: field 'reply.probability': NaN",
        ),
    }
    for name, (data, said) in cases.items():
        (tmp_path / name).write_bytes(data)
        line = refused(capsys, "bench", "grade", str(bench), str(tmp_path / name))
        assert said in line, line

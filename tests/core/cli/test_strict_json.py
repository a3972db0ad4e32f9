"""Every ``--json`` output of the command line is strict JSON (issue 52 point 10): each command
that has a ``--json`` option runs once here and its output is parsed by a parser that refuses
``NaN`` and ``Infinity``, as jq and a browser's ``JSON.parse`` do. ``results --by-case --json``
wrote ``"stability": NaN`` for a case run once; the exports (``results --format json|jsonl``)
are held to the same rule. A command that gains ``--json`` must be added here (checked)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from explaincheck.core.cli.main import SUBCOMMANDS, build_parser, main

MODELS = Path(__file__).resolve().parents[2] / "models"
SMALL = ["--env", "frozen_lake", "--llm", "random", "--categories", "satisfy,best_action"]
SMALL_BASE = list(SMALL)
SMALL += ["--budget", "3"]


def strict(text: str):
    """``json.loads`` that refuses NaN, Infinity and -Infinity."""

    def refuse(name: str):
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("json")
    db = folder / "r.sqlite"
    # budgets 3 then 4 into one file: cases of both are run twice, the others once (their
    # stability unknown: a column of None and text, which pandas once wrote as NaN)
    assert main(["run", *SMALL, "--db", str(db)]) == 0
    assert main(["run", *SMALL_BASE, "--budget", "4", "--db", str(db)]) == 0
    bench = folder / "bench"
    args = ["bench", "export", "--out", str(bench), "--env", "frozen_lake", "--budget", "1"]
    assert main(args) == 0
    questions = [json.loads(line) for line in (bench / "questions.jsonl").read_text().splitlines()]
    answers = folder / "answers.jsonl"
    answers.write_text(json.dumps({"id": questions[0]["id"], "reply": "{}"}) + "\n")
    policy = folder / "p.csv"
    policy.write_text("r,c,action\n0,0,left\n")  # the rest filled by --policy-default
    return {"db": db, "bench": bench, "answers": answers, "policy": policy, "folder": folder}


def invocations(files) -> dict[str, list[list[str]]]:
    """Each command with ``--json``, as the user runs it (at least once per command)."""
    db, folder = str(files["db"]), files["folder"]
    return {
        "envs": [["envs", "--json"]],
        "plugins": [["plugins", "--json"]],  # (plugins check DIST --json: test_plugins_command)
        "oracle": [
            ["oracle", "frozen_lake", "--json"],
            ["oracle", "frozen_lake", "--policy", str(files["policy"]), "--policy-default",
             "uniform", "--json"],
            ["oracle", str(MODELS / "die.prism"), "--json"],
        ],
        "results": [
            ["results", "--db", db, "--json"],
            ["results", "--db", db, "--by-case", "--json"],
            ["results", "--db", db, "--format", "json"],
        ],
        "compare": [["compare", db, db, "--json"]],
        "bench": [["bench", "grade", str(files["bench"]), str(files["answers"]), "--json"]],
        "sweep": [["sweep", str(MODELS / "flip.prism"), "--const", "p=0.2:0.8:0.3", "--json"]],
        "policy": [["policy", "--env", "frozen_lake", "--llm", "random", "--budget", "3",
                    "--db", str(folder / "policy.sqlite"), "--json"]],
        "selfcheck": [["selfcheck", "--env", "frozen_lake", "--llm", "random", "--budget", "3",
                       "--db", str(folder / "self.sqlite"), "--json"]],
        # split before train-set: train-set reads the split it writes
        "split": [["split", "--db", db, "--out", str(folder / "split.json"), "--json"]],
        "train-set": [["train-set", "--db", db, "--split", str(folder / "split.json"),
                       "--format", "dpo", "--out", str(folder / "dpo"), "--json"]],
    }  # fmt: skip


def json_commands() -> set[str]:
    """The sub-commands whose parser (or an action's parser) has a ``--json`` option."""

    def has_json(parser: argparse.ArgumentParser) -> bool:
        for action in parser._actions:
            if "--json" in action.option_strings:
                return True
            if isinstance(action, argparse._SubParsersAction) and any(
                has_json(sub) for sub in action.choices.values()
            ):
                return True
        return False

    found = set()
    for name in SUBCOMMANDS:
        parser = build_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        if has_json(sub.choices[name]):
            found.add(name)
    return found


def test_every_command_with_json_is_run_here(files):
    assert json_commands() == set(invocations(files))


def test_every_json_output_is_strict_json(files, capsys):
    for runs in invocations(files).values():
        for argv in runs:
            capsys.readouterr()
            assert main(argv) == 0, argv
            out = capsys.readouterr().out
            value = strict(out)
            # (plugins lists [] where no plugin package is installed: a strict empty array)
            assert value not in (None, [], {}) or argv[0] == "plugins", argv
    capsys.readouterr()
    assert main(["results", "--db", str(files["db"]), "--by-case", "--json"]) == 0
    cases = strict(capsys.readouterr().out)
    assert {c["runs"] for c in cases} == {1, 2}
    assert {c["stability"] for c in cases if c["runs"] == 1} == {None}
    assert None not in {c["stability"] for c in cases if c["runs"] == 2}


def test_exports_are_strict_json(files, capsys):
    out = files["folder"] / "rows.jsonl"
    assert main(["results", "--db", str(files["db"]), "--format", "jsonl", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines and all(strict(line) for line in lines)
    capsys.readouterr()
    assert main(["results", "--db", str(files["db"]), "--format", "jsonl"]) == 0
    assert all(strict(line) for line in capsys.readouterr().out.splitlines())


def test_a_non_finite_number_is_written_as_null():
    from explaincheck.core import json_output

    value = {"a": float("nan"), "b": [1.5, float("inf")], "c": (float("-inf"),), "d": "NaN"}
    assert strict(json_output.dumps(value)) == {
        "a": None,
        "b": [1.5, None],
        "c": [None],
        "d": "NaN",
    }

"""Hostile question sets and answers for the bench tests: a set edited on purpose (its manifest
made consistent again), a command that must refuse in one line."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

from explaincheck.core.cli.main import main

DEEP = b"[" * 100_000 + b"]" * 100_000


def tampered(bench: Path, out: Path, edit: Callable[[list[bytes]], list[bytes]]) -> Path:
    """A copy of the set with its lines edited and the manifest made consistent again (hash
    and count), as someone who edits a set on purpose would."""
    shutil.copytree(bench, out)
    lines = edit((out / "questions.jsonl").read_bytes().splitlines(keepends=True))
    data = b"".join(lines)
    (out / "questions.jsonl").write_bytes(data)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.update(sha256=hashlib.sha256(data).hexdigest(), questions=len(lines))
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out


def answers_to(bench: Path, path: Path) -> Path:
    """Every question answered with its own expected answer."""
    questions = [json.loads(line) for line in (bench / "questions.jsonl").read_text().splitlines()]
    path.write_text(
        "".join(
            json.dumps({"id": q["id"], "reply": json.dumps(q["expected"])}) + "\n"
            for q in questions
        )
    )
    return path


def refused(capsys, *argv: str) -> str:
    """The one line a refused command prints (exit 2, nothing else)."""
    capsys.readouterr()
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and "Error:" not in err, err[-2000:]
    assert err.isascii()
    return lines[0]


def with_line(edit: Callable[[bytes], bytes]) -> Callable[[list[bytes]], list[bytes]]:
    return lambda lines: [edit(lines[0]), *lines[1:]]


def small_set(folder: Path) -> Path:
    """A set of frozen_lake's questions, one per category and selection."""
    args = ["bench", "export", "--out", str(folder), "--env", "frozen_lake", "--budget", "1"]
    assert main(args) == 0
    return folder

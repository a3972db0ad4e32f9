"""A peer corpus: every MDP file shipped in the installed stormpy wheel
(``stormpy/examples/files/mdp/*.nm``, found at run time, never copied) is checked through
``explaincheck oracle --json`` against stormpy's own ``Pmax=? [F goal]`` per state, or refused
in one line (exit status 2). The goal is the label ``goal`` where the file has one, else its
first label; a file without labels or with undefined constants is refused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from oracle_helpers import explaincheck_command
from storm_reference import differences, storm_pmax


def corpus() -> list[Path]:
    import stormpy

    return sorted((Path(stormpy.__file__).parent / "examples" / "files" / "mdp").glob("*.nm"))


def first_label(path: Path) -> str | None:
    import stormpy

    try:
        labels = [label.name for label in stormpy.parse_prism_program(str(path)).labels]
    except Exception:
        return None
    return "goal" if "goal" in labels else (labels[0] if labels else None)


OUTCOMES: dict[str, str] = {}


@pytest.mark.parametrize("path", corpus(), ids=lambda p: p.name)
def test_each_corpus_file_is_checked_or_refused_in_one_line(path: Path) -> None:
    goal = first_label(path)
    done = subprocess.run(
        [*explaincheck_command(), "oracle", str(path), "--json", f"--goal={goal or 'goal'}"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr
        OUTCOMES[path.name] = "refused: " + done.stderr.strip()
        return
    assert goal is not None, "a file without labels was checked"
    result = json.loads(done.stdout)
    assert differences(result, storm_pmax(str(path), goal=f'"{goal}"')) == []
    OUTCOMES[path.name] = f"checked: {result['model']['states']:,} states"


def test_corpus_counts(capsys) -> None:
    """Printed with the counts (run after the files; pytest keeps file order)."""
    checked = sum(1 for outcome in OUTCOMES.values() if outcome.startswith("checked"))
    refused = len(OUTCOMES) - checked
    with capsys.disabled():
        print(f"\nstormpy corpus: {len(OUTCOMES)} files, {checked} checked, {refused} refused")
        for name, outcome in sorted(OUTCOMES.items()):
            print(f"  {name}: {outcome}")
    if len(OUTCOMES) == len(corpus()):  # the whole corpus ran (not a -k selection)
        assert checked >= len(corpus()) // 2


def test_storms_semantic_error_names_the_file_once_with_its_line() -> None:
    """Storm words it "Error in FILE, line 48: ..."; the refusal reads FILE:48: ... like a
    syntax error, the path said once."""
    path = next(p for p in corpus() if p.name == "coin2-2-illegalSynchronizingWrite.nm")
    done = subprocess.run(
        [*explaincheck_command(), "oracle", str(path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2
    assert done.stderr.count(path.name) == 1, done.stderr
    assert f"{path}:48: Syncronizing command with action label 'done'" in done.stderr

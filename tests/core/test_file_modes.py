"""Files written for others get the umask's mode, as the results file does (issue 50: the
share file and the bench set were 0600 under umask 022, made private by the temporary file
they were written to; the results file was 0644)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from explaincheck.core.cli.main import main


@pytest.fixture
def umask_022():
    before = os.umask(0o022)
    yield
    os.umask(before)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_share_bench_and_compare_files_get_the_umasks_mode(umask_022, tmp_path, capsys):
    db = tmp_path / "results.sqlite"
    run = ["run", "--env", "wolf_goat_cabbage", "--llm", "random", "--budget", "1"]
    assert main([*run, "--categories", "satisfy,best_action", "--db", str(db)]) == 0
    assert _mode(db) == 0o644  # what the others are held to
    share = tmp_path / "campaign.html"
    assert main(["share", "--db", str(db), "--out", str(share)]) == 0
    bench = tmp_path / "bench"
    export = ["bench", "export", "--out", str(bench), "--env", "wolf_goat_cabbage"]
    assert main([*export, "--budget", "1"]) == 0
    from explaincheck.core.analysis.compare_files import write_text_atomic

    compared = write_text_atomic(tmp_path / "compare" / "pairs.csv", "a,b\n")
    written = [share, bench / "questions.jsonl", bench / "manifest.json", compared]
    assert {p.name: _mode(p) for p in written} == {p.name: 0o644 for p in written}
    os.umask(0o077)  # a private umask keeps them private
    assert main(["share", "--db", str(db), "--out", str(share)]) == 0
    assert _mode(share) == 0o600
    capsys.readouterr()

"""A read-only or full cache folder: one warning, the work goes on, no leftover temporary file."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

from explaincheck.core import cache_files

MODEL = Path(__file__).parents[1] / "models" / "two_step.prism"


def test_a_full_folder_leaves_no_temporary_and_warns_once(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cache_files, "_cache_warned", False)

    def fill_up(stream):
        stream.write("{")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    target = tmp_path / "entry.json"
    assert cache_files.write_atomic(target, fill_up) is False
    assert cache_files.write_atomic(target, fill_up) is False
    assert list(tmp_path.iterdir()) == []
    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == 1
    assert "No space left on device" in warnings[0]
    assert "going on without the cache" in warnings[0]


def test_a_written_entry_is_whole(tmp_path):
    target = tmp_path / "sub" / "entry.json"
    assert cache_files.write_atomic(target, lambda stream: stream.write("{}"))
    assert target.read_text() == "{}"
    assert [p.name for p in target.parent.iterdir()] == ["entry.json"]


def test_the_oracle_runs_without_a_writable_cache(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")  # the cache folder would be below a file: it cannot be made
    environment = dict(os.environ, EXPLAINCHECK_CACHE=str(blocker / "cache"))
    done = subprocess.run(
        [sys.executable, "-m", "explaincheck.core.cli.main", "oracle", str(MODEL)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "V(s0)        0.4 = 2/5" in done.stdout
    assert "Traceback" not in done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1, done.stderr
    assert "cannot be written" in warnings[0]

"""The oracle's child hands a large result back through shared memory where it has room, and
turns off what made its arrays fault in slowly (``page_faults``, ``isolation.handoff_folders``):
speed only, so the test is that the switches hold, the hand-off picks the right folder, and no
folder outlives the job."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections import namedtuple
from pathlib import Path

import pytest
from oracle_helpers import gridworld_text

from explaincheck.core.oracle import isolation
from explaincheck.core.oracle.isolation import OracleJob, handoff_folders, roomy_folder
from explaincheck.core.oracle.types import OracleRequest

CHECK = """
import sys
from numpy._core.multiarray import _set_madvise_hugepage
from explaincheck.core.oracle.page_faults import fewer_page_faults
print(fewer_page_faults(), _set_madvise_hugepage(False))  # the second: the flag before
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_the_switches_take_effect_in_a_fresh_process():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]  # applied; huge-page advice was off


ROUNDS = """
import resource, sys
from explaincheck.core.oracle.page_faults import held_arenas
held = held_arenas(16) if sys.argv[1] == "held" else []
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for round in range(40):  # as oracle --json's blocks: megabytes of short strings, then none
    texts = [str(round * 100_000 + k) + ", " for k in range(60_000)]
    del texts
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, len(held))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="getrusage's page faults")
def test_held_arenas_keep_short_lived_strings_from_faulting_in_again():
    def faults(mode: str) -> tuple[int, int]:
        environment = {k: v for k, v in os.environ.items() if k != "PYTHONMALLOC"}
        out = subprocess.run(
            [sys.executable, "-c", ROUNDS, mode],
            capture_output=True,
            text=True,
            check=True,
            env=environment,
        )
        found, held = out.stdout.split()
        return int(found), int(held)

    loose, none_held = faults("loose")
    kept, held = faults("held")
    assert none_held == 0 and held >= 128  # one object per 128 kB of 16 MB
    assert loose > 10_000  # each round's arenas faulted in again: 40 rounds of about 4 MB
    assert kept < loose / 10


Usage = namedtuple("Usage", "total used free")


def test_shared_memory_is_used_only_with_room_to_spare(monkeypatch, tmp_path):
    memory, disk = str(tmp_path / "memory"), str(tmp_path / "disk")
    room = {memory: 150, disk: 0}
    monkeypatch.setattr(isolation.shutil, "disk_usage", lambda f: Usage(0, 0, room[f]))
    assert roomy_folder((memory, disk), 100) == memory  # 1.5 times what it needs
    assert roomy_folder((memory, disk), 101) == disk
    assert roomy_folder((disk,), 10**12) == disk  # the disk whatever its room
    monkeypatch.setattr(isolation, "available_memory", lambda: 199)
    assert roomy_folder((memory, disk), 100) == disk  # room there, but not twice in memory
    monkeypatch.setattr(isolation, "available_memory", lambda: 200)
    assert roomy_folder((memory, disk), 100) == memory


def test_available_memory_is_the_kernels_figure():
    found = isolation.available_memory()
    assert 0 < found < 1 << 50  # /proc/meminfo is read here, in bytes


def test_the_folders_are_in_shared_memory_then_on_disk():
    folders = handoff_folders()
    try:
        assert Path(folders[-1]).parent == Path(tempfile.gettempdir())
        if os.access(isolation.MEMORY_FOLDER, os.W_OK):
            assert len(folders) == 2 and folders[0].startswith(isolation.MEMORY_FOLDER + "/")
    finally:
        for folder in folders:
            os.rmdir(folder)


def _ours() -> set[str]:
    places = [isolation.MEMORY_FOLDER, tempfile.gettempdir()]
    return {
        str(Path(place) / name)
        for place in places
        if os.path.isdir(place)
        for name in os.listdir(place)
        if name.startswith("explaincheck-oracle-")
    }


def test_a_columnar_result_crosses_and_leaves_no_folder(tmp_path):
    path = tmp_path / "grid.prism"
    path.write_text(gridworld_text(75))  # above the columnar threshold (5,000 states)
    job = OracleJob(OracleRequest(str(path), centrality=False))
    made = set(job._folders)
    result = job.wait(120)
    assert result.columnar and result.model.states > 5_000
    assert result.states.facts(0).valuation  # the mapped columns are readable
    assert not made & _ours()  # both hand-off folders are gone


def test_a_cancelled_job_leaves_no_folder(tmp_path):
    path = tmp_path / "grid.prism"
    path.write_text(gridworld_text(75))
    job = OracleJob(OracleRequest(str(path), centrality=False))
    made = set(job._folders)
    assert all(os.path.isdir(folder) for folder in made)
    job.cancel()
    assert not any(os.path.exists(folder) for folder in made)


LATER = """
import os
from explaincheck.core.oracle.page_faults import fewer_page_faults
fewer_page_faults()
import sys
before = "numpy" in sys.modules
from numpy._core.multiarray import _set_madvise_hugepage
print(before, _set_madvise_hugepage(False), os.environ["NUMPY_MADVISE_HUGEPAGE"])
"""


def test_before_numpy_is_imported_the_advice_is_off_from_its_import():
    """The command's parent need not import NumPy for it (a small model's JSON needs none)."""
    out = subprocess.run([sys.executable, "-c", LATER], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "0"]


@pytest.mark.skipif(not os.access(isolation.MEMORY_FOLDER, os.W_OK), reason="no /dev/shm")
def test_a_dead_processs_folder_in_shared_memory_is_removed():
    """A parent killed after its child wrote the columns leaves them in shared memory, which
    holds them until removed: the next job removes the folders of processes that are gone."""
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = int(gone.stdout)
    place = isolation.MEMORY_FOLDER
    stale = tempfile.mkdtemp(prefix=f"{isolation.HANDOFF_PREFIX}{dead}-", dir=place)
    Path(stale, "0.npy").write_bytes(b"x" * 100)
    mine = tempfile.mkdtemp(prefix=f"{isolation.HANDOFF_PREFIX}{os.getpid()}-", dir=place)
    other = tempfile.mkdtemp(prefix="someone-else-", dir=place)
    folders = handoff_folders()
    try:
        assert not os.path.exists(stale)
        assert os.path.isdir(mine) and os.path.isdir(other)  # alive, or not ours
        assert Path(folders[0]).name.startswith(f"{isolation.HANDOFF_PREFIX}{os.getpid()}-")
    finally:
        for folder in (*folders, mine, other):
            shutil.rmtree(folder, ignore_errors=True)

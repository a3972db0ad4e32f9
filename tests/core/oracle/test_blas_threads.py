"""One OpenBLAS thread in the oracle's processes (``blas_threads``): speed only, so the tests
are that the OpenBLAS libraries NumPy and SciPy load really run one thread where the command
and the oracle's child ask for it (each library asked through its own C function), that a
count the user set is kept, and, as a control, that the same libraries start more than one
thread where nobody asks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc/self/maps"
)

# the thread count of every OpenBLAS this process has loaded, by file name: NumPy's (64-bit
# integers, its functions end in 64_) and SciPy's
COUNTS = textwrap.dedent(
    """
    import ctypes, os

    def counts():
        found = {}
        paths = {line.split()[-1] for line in open("/proc/self/maps") if "openblas" in line}
        for path in sorted(paths):
            library = ctypes.CDLL(path)
            for name in ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads"):
                if hasattr(library, name):
                    found[os.path.basename(path)] = getattr(library, name)()
                    break
        return found
    """
)

FRESH = COUNTS + textwrap.dedent(
    """
    import json, sys
    from explaincheck.core.oracle.blas_threads import one_blas_thread
    took = one_blas_thread() if sys.argv[1] == "asked" else None
    import numpy, scipy.sparse.linalg
    print(json.dumps([took, counts(), os.environ.get("OPENBLAS_NUM_THREADS")]))
    """
)


def fresh(mode: str, **environment: str) -> list:
    """What ``FRESH`` prints, with ``environment`` added to the caller's (count unset)."""
    return json.loads(run_fresh("-c", FRESH, mode, **environment))


def test_numpys_and_scipys_openblas_run_one_thread_when_asked_before_numpys_import():
    _, unasked, _ = fresh("not asked")
    assert len(unasked) == 2  # NumPy's and SciPy's own
    if max(unasked.values()) == 1:
        pytest.skip("OpenBLAS starts one thread on this machine anyway: nothing to tell apart")
    took, asked, variable = fresh("asked")
    assert took is True
    assert asked == dict.fromkeys(unasked, 1)
    assert variable == "1"


def test_a_count_the_user_set_is_kept():
    took, counts, variable = fresh("asked", OPENBLAS_NUM_THREADS="2")
    assert took is True
    assert variable == "2"
    assert set(counts.values()) == {2}


CHILD = COUNTS + textwrap.dedent(
    """
    import json, sys, threading, time
    from explaincheck.core.errors import ExplaincheckError
    from explaincheck.core.oracle.isolation import OracleJob, start_method
    from explaincheck.core.oracle.types import OracleRequest

    def report(request):  # runs where the oracle would, after the child's imports
        raise ExplaincheckError(json.dumps(counts()))

    if __name__ == "__main__":
        if sys.argv[2] == "spawn":  # as the window's: another thread runs, so no fork
            threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        try:
            OracleJob(OracleRequest(sys.argv[1]), compute=report).wait(60)
        except ExplaincheckError as error:
            print(start_method(), str(error).split(": ", 1)[1])
    """
)

COMMAND = COUNTS + textwrap.dedent(
    """
    import contextlib, io, json, sys
    from explaincheck.gui.launcher import main
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["oracle", sys.argv[1], "--no-cache"])
    print(json.dumps([status, counts()]))
    """
)


def run_fresh(*arguments, **environment: str) -> str:
    """The last line a fresh interpreter prints, run with ``arguments``, OpenBLAS's count unset
    unless ``environment`` sets it."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"} | environment
    run = subprocess.run(
        [sys.executable, *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.strip().splitlines()[-1]


@pytest.fixture
def unasked() -> dict[str, int]:
    """The libraries' thread counts where nobody asks (skips where that is one already)."""
    _, counts, _ = fresh("not asked")
    if max(counts.values()) == 1:
        pytest.skip("OpenBLAS starts one thread on this machine anyway: nothing to tell apart")
    return counts


MODEL = (
    'mdp\nmodule m\n x : [0..1] init 0;\n [go] x=0 -> (x\'=1);\nendmodule\nlabel "goal" = x=1;\n'
)


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_the_oracles_child_asks_before_scipys_openblas_loads(tmp_path, unasked, start):
    path = tmp_path / "m.prism"
    path.write_text(MODEL)
    script = tmp_path / "child.py"  # a file: a spawned child imports its caller's module
    script.write_text(CHILD)
    method, counts = run_fresh(script, path, start).split(" ", 1)
    assert method == start
    numpy_library = next(name for name in unasked if "openblas64" in name)
    scipy_library = next(name for name in unasked if "openblas64" not in name)
    # forked from a caller that asked nothing (a campaign on the command line): NumPy was
    # loaded before the fork with its threads, SciPy's OpenBLAS is loaded in the child; a
    # spawned child (the window's) loads both after asking
    numpy_threads = unasked[numpy_library] if start == "fork" else 1
    assert json.loads(counts) == {numpy_library: numpy_threads, scipy_library: 1}


def test_the_oracle_command_asks_before_numpys_import(tmp_path, unasked):
    path = tmp_path / "m.prism"
    path.write_text(MODEL)
    status, counts = json.loads(run_fresh("-c", COMMAND, path))
    assert status == 0
    numpy_library = next(name for name in unasked if "openblas64" in name)
    assert counts[numpy_library] == 1  # the command's own NumPy, inherited by its child

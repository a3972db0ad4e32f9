"""SciPy's sparse modules load without NumPy's f2py, testing and ma (``scipy_import``): speed
only, so the tests are that those modules stay unloaded, in the oracle's child too, that NumPy's
namespace is whole again afterwards, and that SciPy's solvers still solve."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from explaincheck.core.oracle.scipy_import import UNUSED_SUBMODULES

FRESH = textwrap.dedent(
    """
    import json, sys
    import numpy
    listed, listing = list(numpy.__all__), sorted(dir(numpy))
    from explaincheck.core.oracle.scipy_import import import_sparse
    import_sparse()
    import_sparse()  # a second call: SciPy is loaded, nothing to do
    loaded = sorted(name for name in sys.modules if name.split(".")[:2] in {hidden})
    whole = list(numpy.__all__) == listed and sorted(dir(numpy)) == listing
    import scipy.sparse as sparse
    from scipy.sparse.csgraph import connected_components
    from scipy.sparse.linalg import splu
    system = sparse.csc_matrix([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    solved = splu(system).solve(numpy.array([1.0, 0.0, 1.0])).tolist()
    parts = int(connected_components(sparse.csr_matrix(numpy.eye(3)))[0])
    masked = int(numpy.ma.masked_array([1, 2, 3], mask=[0, 1, 0]).sum())  # loads on first use
    print(json.dumps([loaded, whole, solved, parts, masked]))
    """
).replace("{hidden}", repr([["numpy", name] for name in sorted(UNUSED_SUBMODULES)]))


def test_scipy_loads_without_numpys_unused_modules_and_numpy_is_whole_again():
    run = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    loaded, whole, solved, parts, masked = json.loads(run.stdout.strip().splitlines()[-1])
    assert loaded == []
    assert whole
    assert solved == pytest.approx([1.0, 1.0, 1.0], abs=1e-15)  # hand-checked solution
    assert parts == 3
    assert masked == 4


CHILD = textwrap.dedent(
    """
    import sys
    from explaincheck.core.errors import ExplaincheckError
    from explaincheck.core.oracle.isolation import OracleJob, start_method
    from explaincheck.core.oracle.types import OracleRequest

    def report(request):  # runs where the oracle would, after the child's imports
        import scipy.sparse  # noqa: F401  (loaded already: this is the oracle's own import)
        loaded = sorted(m for m in ("numpy.f2py", "numpy.testing", "numpy.ma") if m in sys.modules)
        raise ExplaincheckError("loaded: " + ",".join(loaded))

    print(start_method())
    try:
        OracleJob(OracleRequest(sys.argv[1]), compute=report).wait(60)
    except ExplaincheckError as error:
        print(error)
    """
)


def test_the_oracles_child_loads_scipy_without_them(tmp_path):
    path = tmp_path / "m.prism"
    path.write_text("mdp\nmodule m\n x : [0..1] init 0;\n [go] x=0 -> (x'=1);\nendmodule\n")
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    # the command line's child (forked) imports SciPy before the oracle's modules do
    assert run.stdout.strip().splitlines() == ["fork", f"{path}: loaded:"]

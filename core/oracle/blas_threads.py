"""One OpenBLAS thread in the oracle's processes: its idle workers cost CPU and do no work here.

NumPy and SciPy each load their own OpenBLAS, and each starts a worker thread per core when it
is loaded. A worker that has no work spins for a while before it sleeps, at load and after
every BLAS call: on the 2-core VMs this tool runs on that was 0.2 s of CPU in every oracle run
(``explaincheck oracle`` on the 10^5-state grid of ``benchmarks/oracle_scaling.py``: 1.45-1.65 s
of CPU, 1.23-1.35 s with one thread; 0.3 s of the 10^6-state grid's 9.7 s). The oracle's
numerics gain nothing from those workers: its matrices are sparse (SciPy's SuperLU and graph
searches, which run on the calling thread; PARDISO, which has MKL's threads), and where it
computes two things at once it uses threads of its own (``block_solve``, ``certificate``),
which BLAS workers would only crowd. The slippery grid, the one model whose values come from
SuperLU, took the same wall time either way (16.6-17.0 s).

OpenBLAS reads its thread count when it is loaded, so this must run before NumPy (and SciPy) is
imported, in this process or in a parent that forks it. A count the user set is kept.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "OPENBLAS_NUM_THREADS"


def one_blas_thread() -> bool:
    """Ask every OpenBLAS loaded from now on, here and in forked or spawned children, for one
    thread unless the user set a count; True when the OpenBLAS this process uses will have
    what was asked (NumPy not imported yet, or the count already set)."""
    if VARIABLE in os.environ:
        return True
    os.environ[VARIABLE] = "1"
    return "numpy" not in sys.modules

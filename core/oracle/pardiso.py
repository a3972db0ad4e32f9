"""Intel MKL's PARDISO, the optional faster factoriser of policy iteration (extra ``pardiso``).

Policy iteration factorises ``I - P_π`` once per round (``values.py``). SciPy's SuperLU analyses
each round's matrix afresh and factorises with level-2 kernels: 0.13 s a round at 10^5 states.
Every round's chain is part of one pattern, the model's state graph plus the diagonal, so
PARDISO analyses that pattern once (its own METIS order) and then only refactorises numbers, with
level-3 kernels: 0.065 s a round on one core (the slippery gridworld at 10^5 states, 105 rounds).

This module is a thin ``ctypes`` binding to ``libmkl_rt`` (the ``mkl`` wheel puts it in the
environment's ``lib`` folder; ``EXPLAINCHECK_MKL_RT`` names another file). Where MKL is missing
or fails to load, ``library()`` is None and policy iteration keeps SuperLU: same values up to
round-off, since either solve is refined against the same matrix.

Scaling and weighted matching are off: they would fix a pivot order from the first round's
numbers, and ``I - P`` (an M-matrix, diagonally dominant on the states that reach the target)
needs no pivoting. A factorisation that still perturbed a pivot is refused (``PivotPerturbed``)
and the caller uses SuperLU for that round, as for any other ``PardisoError``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from functools import cache
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix

from explaincheck.core.oracle.cores import available_cores

ENVIRONMENT = "EXPLAINCHECK_MKL_RT"  # path of libmkl_rt to use instead of the environment's
REAL_NONSYMMETRIC = 11  # PARDISO's matrix type
ANALYSE, FACTOR, SOLVE, RELEASE = 11, 22, 33, -1  # PARDISO's phases
MOST_THREADS = 4  # beyond this a policy-iteration factorisation gains nothing on these sizes


class PardisoError(RuntimeError):
    """PARDISO could not do a phase (its error code in the message): out of memory, say."""


class PivotPerturbed(PardisoError):
    """PARDISO replaced a tiny pivot by a small number: its factors are not of the matrix."""


def _candidates() -> list[Path]:
    """Where ``libmkl_rt`` may be: the file ``EXPLAINCHECK_MKL_RT`` names, else the
    environment's (and the base interpreter's) library folders, as the ``mkl`` wheel fills them."""
    named = os.environ.get(ENVIRONMENT)
    if named:
        return [Path(named)]
    found = []
    for prefix in dict.fromkeys([sys.prefix, sys.base_prefix]):
        found += sorted(Path(prefix, "lib").glob("libmkl_rt.so*"))  # Linux
        found += sorted(Path(prefix, "Library", "bin").glob("mkl_rt*.dll"))  # Windows
    return found


@cache
def library() -> ctypes.CDLL | None:
    """MKL's runtime library with ``pardiso`` in it, or None where none loads."""
    # Intel's OpenMP threads otherwise spin 200 ms after each factorisation, taking a core from
    # the Python work between two (measured: 29.5 s of CPU instead of 23.8 s, and slower)
    os.environ.setdefault("KMP_BLOCKTIME", "0")
    for path in _candidates():
        try:
            mkl = ctypes.CDLL(str(path))
            mkl.pardiso  # noqa: B018 (the symbol must be there)
        except (OSError, AttributeError):
            continue
        threads = min(MOST_THREADS, available_cores())
        mkl.MKL_Set_Num_Threads(ctypes.c_int(threads))
        return mkl
    return None


def available() -> bool:
    return library() is not None


class PatternFactor:
    """PARDISO on one sparsity pattern: analysed once, refactorised per call of ``factor``.

    ``pattern``: a CSR matrix with sorted column indices whose entries hold every nonzero any
    later matrix will have (explicit zeros allowed); later matrices pass only their ``data``,
    entry for entry in this pattern."""

    def __init__(self, pattern: csr_matrix) -> None:
        mkl = library()
        if mkl is None:
            raise RuntimeError(
                "MKL's PARDISO is not installed (pip install 'explaincheck[pardiso]')"
            )
        self._mkl = mkl
        self.size = pattern.shape[0]
        self._indptr = np.ascontiguousarray(pattern.indptr, dtype=np.int32)
        self._indices = np.ascontiguousarray(pattern.indices, dtype=np.int32)
        self._handle = np.zeros(64, dtype=np.int64)  # PARDISO's internal pointers
        self._settings = np.zeros(64, dtype=np.int32)
        self._settings[0] = 1  # not the defaults: the settings below
        self._settings[1] = 2  # METIS fill-reducing order
        self._settings[7] = 0  # no refinement inside (the caller refines against its own matrix)
        self._settings[9] = 13  # pivots below 1e-13 are perturbed (and then refused here)
        self._settings[10] = 0  # no scaling ...
        self._settings[12] = 0  # ... and no weighted matching: both fix an order from numbers
        self._settings[34] = 1  # zero-based indices
        self._data = np.ones(len(self._indices))
        self._factored = False
        self._call(ANALYSE, self._data, np.zeros(self.size), np.zeros(self.size))

    def factor(self, data: np.ndarray) -> None:
        """Factorise the pattern's matrix with entries ``data``."""
        self._data = np.ascontiguousarray(data, dtype=np.float64)
        self._call(FACTOR, self._data, np.zeros(self.size), np.zeros(self.size))
        self._factored = True
        if self._settings[13] > 0:
            raise PivotPerturbed(f"{int(self._settings[13])} pivots perturbed")

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """x with ``A x = rhs`` for the last factorised matrix A."""
        if not self._factored:
            raise RuntimeError("factor() first")
        x = np.zeros(self.size)
        self._call(SOLVE, self._data, np.ascontiguousarray(rhs, dtype=np.float64), x)
        return x

    def close(self) -> None:
        """Free PARDISO's memory (also on garbage collection)."""
        if self._handle.any():
            self._call(RELEASE, self._data, np.zeros(self.size), np.zeros(self.size))
            self._handle[:] = 0

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown there is nothing to free
            self.close()

    def _call(self, phase: int, data: np.ndarray, rhs: np.ndarray, x: np.ndarray) -> None:
        def int_ref(value: int) -> ctypes._Pointer[ctypes.c_int32]:
            return ctypes.pointer(ctypes.c_int32(value))

        def array(values: np.ndarray) -> ctypes.c_void_p:
            return values.ctypes.data_as(ctypes.c_void_p)

        error = ctypes.c_int32(0)
        self._mkl.pardiso(
            array(self._handle),
            int_ref(1),  # one factorisation kept
            int_ref(1),  # ... and it is this one
            int_ref(REAL_NONSYMMETRIC),
            int_ref(phase),
            int_ref(self.size),
            array(data),
            array(self._indptr),
            array(self._indices),
            int_ref(0),  # no user permutation
            int_ref(1),  # one right-hand side
            array(self._settings),
            int_ref(0),  # no messages
            array(rhs),
            array(x),
            ctypes.byref(error),
        )
        if error.value != 0:
            raise PardisoError(f"PARDISO phase {phase} failed with error {error.value}")

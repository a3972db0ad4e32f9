"""Import SciPy's sparse modules without the NumPy modules only SciPy's array-API layer touches.

SciPy (1.15 on) vendors ``array_api_compat``, which on import clones NumPy's namespace: it runs
``from numpy import *`` and reads every name ``dir(numpy)`` lists. NumPy loads its submodules
lazily, so the clone imports ``numpy.f2py``, ``numpy.testing``, ``numpy.ma``, ``numpy.polynomial``
and a few more, none of which the oracle or SciPy's sparse code uses: 0.11 s of CPU in every
oracle child, an eighth of a 10^4-state ``oracle --json`` (``benchmarks/oracle_scaling.py``).
SciPy reads those names from the clone only for CuPy and PyTorch arrays (its test helpers).

``import_sparse`` hides them from both ``numpy.__all__`` and ``dir(numpy)`` while SciPy's
sparse package loads, and restores both afterwards; once SciPy is loaded it does nothing. A
module imported later can still use any of them: NumPy imports it on first use, as always.
"""

from __future__ import annotations

import sys

# NumPy's submodules the clone would import and nothing on the oracle's path needs
UNUSED_SUBMODULES = frozenset(
    {"char", "core", "ctypeslib", "f2py", "ma", "polynomial", "rec", "strings", "testing"}
)


def import_sparse() -> None:
    """Import ``scipy.sparse``, its graph algorithms and its linear solvers (the oracle's SciPy),
    with ``UNUSED_SUBMODULES`` hidden from NumPy's namespace while they load."""
    if "scipy.sparse" in sys.modules:
        return
    import numpy

    names = vars(numpy)  # NumPy's namespace, where ``import *`` and ``dir`` read these two
    listed, listing = names.get("__all__"), names.get("__dir__")
    try:
        if listed is not None:
            names["__all__"] = [name for name in listed if name not in UNUSED_SUBMODULES]
        if listing is not None:
            names["__dir__"] = lambda: [name for name in listing() if name not in UNUSED_SUBMODULES]
        import scipy.sparse
        import scipy.sparse.csgraph
        import scipy.sparse.linalg  # noqa: F401
    finally:
        if listed is not None:
            names["__all__"] = listed
        if listing is not None:
            names["__dir__"] = listing

"""Fewer page faults for the oracle's large arrays: most of its system time went on them.

Two defaults make every fresh large array expensive on the 2-core VMs this tool is used on
(measured at 10^6 states, ``benchmarks/oracle_scaling.py``):

- NumPy asks the kernel for transparent huge pages on every array of 4 MB or more
  (``madvise(MADV_HUGEPAGE)``). Where the kernel's ``defrag`` setting is ``madvise``, as here,
  each such first touch may compact memory to find a 2 MB page: copying a 184 MB array took
  2.2 s of system time with the advice and 0.1 s without it.
- glibc hands every allocation above 128 kB to ``mmap`` and gives it back on free, so the next
  array of that size is faulted in again, page by page. Raising the threshold (to glibc's largest,
  32 MB) and keeping freed memory in the heap lets the phases reuse each other's pages.

Storm's own C++ allocations are unaffected (it asks for no huge pages). The two calls change
speed only, never a value; where either is unavailable (another C library, another OS), the
defaults stay.

A third source is Python's own: its small-object allocator maps memory in arenas of 1 MiB and
unmaps an arena as soon as its last object is freed, so a loop that makes and drops megabytes
of short strings each round (``oracle --json``'s text, a block of states at a time) faults every
arena in again each round. ``held_arenas`` keeps some arenas mapped while its caller runs.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
M_TOP_PAD = -2
M_MMAP_THRESHOLD = -3
LARGEST_MMAP_THRESHOLD = 32 << 20  # glibc's cap on M_MMAP_THRESHOLD (64-bit)
KEPT_FREE = 1 << 30  # freed heap memory kept for reuse before glibc returns it
TOP_PAD = 64 << 20  # extra heap asked for each time the heap grows


def fewer_page_faults() -> bool:
    """Turn off NumPy's huge-page advice and keep freed large blocks for reuse (this process
    only, from now on); True when both took effect."""
    return _no_huge_page_advice() and _reuse_freed_memory()


def _no_huge_page_advice() -> bool:
    if "numpy" not in sys.modules:  # NumPy reads this when it is imported (here or in the
        os.environ["NUMPY_MADVISE_HUGEPAGE"] = "0"  # forked child): the parent need not
        return True
    import importlib

    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):  # NumPy 2, then 1.x
        try:
            switch = getattr(importlib.import_module(name), "_set_madvise_hugepage", None)
        except ImportError:
            continue
        if switch is not None:
            switch(False)
            return True
    return False


def _reuse_freed_memory() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    settings = (
        (M_MMAP_THRESHOLD, LARGEST_MMAP_THRESHOLD),
        (M_TRIM_THRESHOLD, KEPT_FREE),
        (M_TOP_PAD, TOP_PAD),
    )
    return all(mallopt(parameter, value) == 1 for parameter, value in settings)


HELD_OBJECT = 479  # bytes(479) is a 512-byte object, the allocator's largest size class:
# the fewest objects to make (9 ms for 16 MB; 80-byte objects took 36 ms)
HELD_SPAN = 128 << 10  # one object kept per 128 kB: several in each arena (256 kB before 3.10)


def held_arenas(megabytes: int) -> list[bytes]:
    """Small objects spread over ``megabytes`` of Python's small-object arenas: while the caller
    holds the list, those arenas stay mapped (an arena is unmapped only when its last object
    goes), and their free pools serve objects of every size. At 10^6 states the ``--json``
    text faulted in 195,000 pages without them and 17,000 with 16 MB held (0.2 s of system
    time, and a little user time, of its 2.4 s). Speed only; with another allocator
    (``PYTHONMALLOC=malloc``) the list is just a hundred objects kept of many made."""
    count = (megabytes << 20) // (HELD_OBJECT + 33)  # 33: a bytes object's own header
    made = [bytes(HELD_OBJECT) for _ in range(count)]  # distinct objects (bytes(0) is shared)
    return made[:: HELD_SPAN // (HELD_OBJECT + 33)]

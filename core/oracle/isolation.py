"""Run the oracle in a child process with a memory limit, so Storm can never take us down.

A Storm crash (segfault, abort), a model that eats all memory or a user's Cancel ends only the
child; the caller gets a ``ModelError``/``ModelTooLargeError``/``OracleCancelled`` with one line.
The child is started with ``spawn`` (safe next to Qt's and asyncio's threads), or with ``fork``
where the caller runs one thread and no Qt (``start_method``), and sends back the result as plain
data: a large (columnar) result as one ``.npy`` file per column in a folder the
parent made, which the parent maps rather than receive a pickled copy of (``cache.write_columns``):
in memory (``/dev/shm``) where it has room, else on disk (``handoff_folders``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import ForkContext, SpawnContext
from pathlib import Path
from typing import Any

from explaincheck.core.errors import (
    ExplaincheckError,
    ModelError,
    ModelTooLargeError,
    OracleCancelled,
)
from explaincheck.core.oracle.types import OracleRequest, OracleResult, phase_fraction

BUILD_BYTES_PER_STATE = 512  # Storm's explicit build needed ~300 B a state (10^6 counters)
BUILD_BASE_BYTES = 512 << 20  # interpreter, Storm and the parsed program


def default_memory_limit() -> int:
    """Three quarters of physical memory, in bytes: room for the caller, none for runaway Storm."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        total = 8 << 30
    return int(total * 0.75)


def build_memory_bound(state_limit: int) -> int:
    """Resident memory a build within ``state_limit`` states cannot need: a build that passes it
    is a model beyond the limit, stopped long before it exhausts the machine."""
    return BUILD_BASE_BYTES + state_limit * BUILD_BYTES_PER_STATE


@dataclass(frozen=True)
class OracleProgress:
    """What the child is doing: a phase, its counts and the child's resident memory."""

    phase: str  # building, structure, values, danger, ..., facts (``types.PHASES``)
    counts: dict[str, int]
    seconds: float  # since the job started
    memory: int  # bytes resident in the child

    @property
    def fraction(self) -> float | None:
        """How far the run is, by its phase (None before the first)."""
        return phase_fraction(self.phase)


ProgressCallback = Callable[[OracleProgress], None]


@dataclass(frozen=True)
class _Failure:
    kind: str  # "model", "too_large", "other"
    message: str
    line: int | None = None
    column: int | None = None


def start_method() -> str:
    """How to start the child: ``fork`` where this process runs one Python thread and has not
    loaded Qt (the command line's ``oracle``, ``envs``, ``run --dry-run``: the child inherits the
    interpreter and the imports already made instead of repeating them, 0.1 s of CPU a model,
    a tenth of a 10^4-state oracle's), ``spawn`` everywhere else: forking next to Qt's,
    asyncio's or a worker's threads could copy a lock another thread holds."""
    alone = threading.active_count() == 1 and "PySide6.QtCore" not in sys.modules
    return "fork" if alone and "fork" in multiprocessing.get_all_start_methods() else "spawn"


def _context() -> ForkContext | SpawnContext:
    """multiprocessing's context for ``start_method``. Before a fork NumPy is imported here, so
    that the child inherits it rather than import it a second time: the child always needs it,
    and this process does to read a large result (0.05 s of CPU, a twentieth of a 10^4-state
    ``oracle --json``)."""
    if start_method() == "fork":
        import numpy  # noqa: F401

        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def lower_memory_limit(limit: int) -> None:
    """Set the address-space limit to ``limit`` unless an inherited one is already lower; the
    hard limit is never touched (a child cannot raise it, so trying would fail)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    caps = [value for value in (soft, hard, limit) if value not in (resource.RLIM_INFINITY, 0)]
    if limit <= 0 or not caps:
        return
    resource.setrlimit(resource.RLIMIT_AS, (min(caps), hard))


def die_with_parent(parent: int) -> None:
    """End this child when the parent ends, however it ends (SIGTERM, SIGKILL, a crash): the
    kernel's parent-death signal, plus a polling thread for when that is unavailable."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


MEMORY_FOLDER = "/dev/shm"  # Linux's shared memory, as files: no disk between the processes
HANDOFF_PREFIX = "explaincheck-oracle-"  # then, in shared memory, the parent's pid and "-"


def handoff_folders() -> tuple[str, ...]:
    """Where the child may write a large result's columns, best first: a new folder in shared
    memory when there is one, and always one on disk. Writing 184 MB of columns (10^6 states)
    to a new file on disk took 1.3 to 1.9 s of system time here, into shared memory 0.1 s."""
    folders = []
    if os.path.isdir(MEMORY_FOLDER) and os.access(MEMORY_FOLDER, os.W_OK):
        remove_stale_folders(MEMORY_FOLDER)
        with contextlib.suppress(OSError):  # full, or mounted read-only
            prefix = f"{HANDOFF_PREFIX}{os.getpid()}-"
            folders.append(tempfile.mkdtemp(prefix=prefix, dir=MEMORY_FOLDER))
    folders.append(tempfile.mkdtemp(prefix=HANDOFF_PREFIX))
    return tuple(folders)


def remove_stale_folders(place: str) -> None:
    """Remove the hand-off folders in ``place`` whose process is gone: shared memory holds its
    files until they are removed, and a process killed between the child's write and its own
    clean-up (SIGKILL) would leave them there until the machine restarts."""
    try:
        names = os.listdir(place)
    except OSError:
        return
    for name in names:
        owner = name[len(HANDOFF_PREFIX) :].split("-", 1)[0]
        if not name.startswith(HANDOFF_PREFIX) or not owner.isdigit():
            continue
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(place, name), ignore_errors=True)
        except OSError:  # alive, under another user
            continue


def roomy_folder(folders: tuple[str, ...], needed: int) -> str:
    """The first of ``folders`` with room for ``needed`` bytes and half as much to spare (a
    container's shared memory is often 64 MB: a result that does not fit goes to disk), and,
    since shared memory is memory, with twice ``needed`` of the machine's memory available
    (files on disk can leave memory again, these cannot); the last (on disk) whatever its
    room, where a full disk is an error worth seeing."""
    for folder in folders[:-1]:
        try:
            roomy = shutil.disk_usage(folder).free >= needed * 3 // 2
        except OSError:
            continue
        if roomy and available_memory() >= 2 * needed:
            return folder
    return folders[-1]


def available_memory() -> int:
    """Bytes of memory the kernel says it can give without swapping (``MemAvailable``); a
    large number where it does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 1 << 62


def _column_bytes(data: dict) -> int:
    return sum(int(getattr(column, "nbytes", 0)) for column in data["columns"].values())


def _child(
    request: OracleRequest,
    memory_limit: int,
    connection: Connection,
    parent: int,
    compute: Callable[[OracleRequest], OracleResult] | None = None,
    folders: tuple[str, ...] = (),
) -> None:
    """Child process body: limit memory, silence Storm's own logging, compute, send back (a
    columnar result's columns as files in the roomiest of ``folders``). ``compute(request) ->
    OracleResult`` defaults to the oracle; flawed pictures pass their own (a module-level
    function, so ``spawn`` can pickle it by name)."""
    die_with_parent(parent)
    # a forked child inherits the caller's handlers (``run`` prints "interrupted" on Ctrl-C):
    # here Ctrl-C ends the computation, as in a spawned child
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # Storm logs warnings and errors itself; ours travel by pipe
    os.dup2(devnull, 2)
    try:
        lower_memory_limit(memory_limit)
        from explaincheck.core.oracle.blas_threads import one_blas_thread
        from explaincheck.core.oracle.page_faults import fewer_page_faults

        one_blas_thread()  # before SciPy's OpenBLAS loads (and NumPy's, in a spawned child)
        fewer_page_faults()  # a forked child inherits them; a spawned one sets its own
        from explaincheck.core.oracle.scipy_import import import_sparse

        import_sparse()  # before the oracle's modules import SciPy their way, 0.11 s slower
        from explaincheck.core.oracle.compute import compute_in_process
        from explaincheck.core.oracle.serialization import to_cache

        def progress(phase: str, **counts: int) -> None:
            connection.send(("progress", (phase, counts)))

        def watch(bound: int) -> None:
            connection.send(("bound", bound))

        if compute is not None:
            result = compute(request)
        else:
            result = compute_in_process(request, progress, watch=watch)
        data = to_cache(result)
        if folders and "columns" in data:
            from explaincheck.core.oracle.cache import write_columns

            folder = roomy_folder(folders, _column_bytes(data))
            write_columns(Path(folder), data)
            connection.send(("columns", folder))
        else:
            connection.send(("ok", data))
    except ModelTooLargeError as error:
        connection.send(("error", _Failure("too_large", str(error))))
    except ModelError as error:
        connection.send(("error", _Failure("model", str(error), error.line, error.column)))
    except MemoryError:
        connection.send(("error", _Failure("too_large", _out_of_memory(request, memory_limit))))
    except Exception as error:  # a Storm failure we did not foresee: still one line
        text = str(error).strip().splitlines()
        message = text[0] if text else type(error).__name__
        if "bad_alloc" in message:
            connection.send(("error", _Failure("too_large", _out_of_memory(request, memory_limit))))
        else:
            connection.send(("error", _Failure("other", f"{request.model_path}: {message}")))
    finally:
        connection.close()
    # Everything is sent and the parent reaps this process as soon as it ends: skip the
    # interpreter's teardown (freeing the model's arrays, stopping the sampler's threads),
    # which kept the parent waiting 0.3 s at 10^4 states. Output went to /dev/null above.
    os._exit(0)


def _resident(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as stream:
            return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _out_of_memory(request: OracleRequest, memory_limit: int) -> str:
    return (
        f"{request.model_path}: the model is too large: building it ran out of the "
        f"{memory_limit / (1 << 30):.1f} GiB memory limit (use smaller constants)"
    )


class OracleJob:
    """One oracle computation in a child process; ``wait`` blocks, ``cancel`` kills it."""

    POLL = 0.25  # seconds between progress reports and memory checks

    def __init__(
        self,
        request: OracleRequest,
        memory_limit: int | None = None,
        on_progress: ProgressCallback | None = None,
        compute: Callable[[OracleRequest], OracleResult] | None = None,
    ):
        self.request = request
        self._memory_limit = default_memory_limit() if memory_limit is None else memory_limit
        # Until the child says what this program's build can need (``build_budget``).
        self._build_bound = build_memory_bound(request.state_limit)
        self._on_progress = on_progress
        self._started = time.monotonic()
        context = _context()
        self._receiver, sender = context.Pipe(duplex=False)
        # where a large result's columns come back (removed by ``wait``, whatever happens)
        self._folders = handoff_folders()
        self._process = context.Process(
            target=_child,
            args=(request, self._memory_limit, sender, os.getpid(), compute, self._folders),
            daemon=True,
        )
        self._process.start()
        sender.close()
        self._cancelled = threading.Event()
        self._phase = "starting"
        self._counts: dict[str, int] = {}

    def cancel(self) -> None:
        self._cancelled.set()
        if self._process.is_alive():
            self._process.kill()
        self._remove_folders()

    def _remove_folders(self) -> None:
        for folder in self._folders:
            shutil.rmtree(folder, ignore_errors=True)

    def _tick(self) -> None:
        """Report progress; stop a build that passes what the state limit can need."""
        memory = _resident(self._process.pid) if self._process.pid else 0
        if self._phase == "building" and 0 < self._build_bound < memory:
            self.cancel()
            raise ModelTooLargeError(
                f"{self.request.model_path}: the model is too large: its build passed "
                f"{self._build_bound / (1 << 30):.1f} GiB, more than {self.request.state_limit:,} "
                "states can need (raise --state-limit of oracle or run or in the GUI's"
                " Settings, or use smaller constants)"
            )
        if self._on_progress is not None:
            seconds = time.monotonic() - self._started
            self._on_progress(OracleProgress(self._phase, dict(self._counts), seconds, memory))

    def _receive(self, timeout: float | None) -> tuple[str, Any]:
        """The final message, handling progress messages and ticks on the way."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = self.POLL
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    self.cancel()
                    raise ModelError(
                        f"{self.request.model_path}: the oracle took longer than {timeout:.0f} s"
                    )
            if self._receiver.poll(wait):
                kind, payload = self._receiver.recv()
                if kind == "bound":  # build_budget: < 0 is "not calibrated", the default
                    limit = self.request.state_limit
                    self._build_bound = payload if payload >= 0 else build_memory_bound(limit)
                    continue
                if kind != "progress":
                    return kind, payload
                self._phase, self._counts = payload
                self._tick()  # every phase change is reported, however quick
                continue
            if self._cancelled.is_set():
                raise EOFError
            self._tick()

    def wait(self, timeout: float | None = None) -> OracleResult:
        """The result, or the child's error as an ``ExplaincheckError``."""
        try:
            return self._result(timeout)
        finally:
            self._remove_folders()

    def _result(self, timeout: float | None) -> OracleResult:
        from explaincheck.core.oracle.serialization import from_cache

        try:
            status, payload = self._receive(timeout)
        except (EOFError, OSError):
            self._process.join(5)
            if self._cancelled.is_set():
                raise OracleCancelled("the oracle computation was cancelled") from None
            code = self._process.exitcode
            if code is not None and code < 0 and -code == 9:
                raise ModelTooLargeError(_out_of_memory(self.request, self._memory_limit)) from None
            raise ModelError(
                f"{self.request.model_path}: the model checker crashed (exit status {code})"
            ) from None
        except BaseException:
            self.cancel()  # interrupted (Ctrl-C, a refused build, a timeout): no orphan child
            raise
        finally:
            self._receiver.close()
        self._process.join(5)
        if status == "columns":
            from explaincheck.core.oracle.cache import read_columns

            payload = read_columns(Path(payload))  # mapped: the files may go at once
            status = "ok"
        if status == "ok":
            result = from_cache(payload)
            return _replace_timing(result, payload)
        failure: _Failure = payload
        if failure.kind == "too_large":
            raise ModelTooLargeError(failure.message)
        if failure.kind == "model":
            raise ModelError(failure.message, line=failure.line, column=failure.column)
        raise ExplaincheckError(failure.message)


def _replace_timing(result: OracleResult, payload: dict) -> OracleResult:
    """``from_cache`` marks results as cached; a fresh child result is not."""
    from dataclasses import replace

    return replace(result, seconds=payload["seconds"], from_cache=False)

"""Run the oracle in a child process with a memory limit, so Storm can never take us down.

A Storm crash (segfault, abort), a model that eats all memory or a user's Cancel ends only the
child; the caller gets a ``ModelError``/``ModelTooLargeError``/``OracleCancelled`` with one line.
The child is started with ``spawn`` (safe next to Qt's and asyncio's threads) and sends back the
result as plain data.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from dataclasses import dataclass

from explaincheck.core.errors import (
    ExplaincheckError,
    ModelError,
    ModelTooLargeError,
    OracleCancelled,
)
from explaincheck.core.oracle.types import OracleRequest, OracleResult


def default_memory_limit() -> int:
    """Three quarters of physical memory, in bytes: room for the caller, none for runaway Storm."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        total = 8 << 30
    return int(total * 0.75)


@dataclass(frozen=True)
class _Failure:
    kind: str  # "model", "too_large", "other"
    message: str
    line: int | None = None
    column: int | None = None


def _child(request: OracleRequest, memory_limit: int, connection, compute=None) -> None:
    """Child process body: limit memory, silence Storm's own logging, compute, send back.
    ``compute(request) -> OracleResult`` defaults to the oracle; flawed pictures pass their own."""
    import resource

    if memory_limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # Storm logs warnings and errors itself; ours travel by pipe
    os.dup2(devnull, 2)
    try:
        from explaincheck.core.oracle.compute import compute_in_process
        from explaincheck.core.oracle.serialization import to_cache

        connection.send(("ok", to_cache((compute or compute_in_process)(request))))
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


def _out_of_memory(request: OracleRequest, memory_limit: int) -> str:
    return (
        f"{request.model_path}: the model is too large: building it ran out of the "
        f"{memory_limit / (1 << 30):.1f} GiB memory limit (use smaller constants)"
    )


class OracleJob:
    """One oracle computation in a child process; ``wait`` blocks, ``cancel`` kills it."""

    def __init__(
        self, request: OracleRequest, memory_limit: int | None = None, compute=None
    ) -> None:
        self.request = request
        self._memory_limit = default_memory_limit() if memory_limit is None else memory_limit
        context = multiprocessing.get_context("spawn")
        self._receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_child, args=(request, self._memory_limit, sender, compute), daemon=True
        )
        self._process.start()
        sender.close()
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()
        if self._process.is_alive():
            self._process.kill()

    def wait(self, timeout: float | None = None) -> OracleResult:
        """The result, or the child's error as an ``ExplaincheckError``."""
        from explaincheck.core.oracle.serialization import from_cache

        try:
            if not self._receiver.poll(timeout):
                self.cancel()
                raise ModelError(
                    f"{self.request.model_path}: the oracle took longer than {timeout:.0f} s"
                )
            status, payload = self._receiver.recv()
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
        finally:
            self._receiver.close()
        self._process.join(5)
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

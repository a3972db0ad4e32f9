"""Run one Storm function in a spawned child with a memory limit and get plain data back.

The oracle (``isolation.py``) and the program description (``program_child.py``) each have their
own child; the teaching workbench asks Storm smaller questions (exact transition fractions, the
most probable paths, a parametric value) and every one of them goes through this one runner, so
a Storm crash or a runaway build ends only the child.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, NoReturn

from explaincheck.core.errors import ExplaincheckError, ModelError

CALL_MEMORY = 4 << 30  # address space for the child: the interpreter, Storm and a small model
CALL_TIMEOUT = 120.0  # seconds


def _child(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    memory_limit: int,
    connection: Connection,
    parent: int,
) -> NoReturn:
    from explaincheck.core.oracle.isolation import die_with_parent, lower_memory_limit

    die_with_parent(parent)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # Storm logs its own copy of every error
    os.dup2(devnull, 2)
    try:
        lower_memory_limit(memory_limit)
        connection.send(("ok", function(*args)))
    except ModelError as error:
        connection.send(("model", (str(error), error.line, error.column)))
    except MemoryError:
        connection.send(("model", ("Storm ran out of memory", None, None)))
    except Exception as error:  # a Storm failure we did not foresee: still one line
        lines = str(error).strip().splitlines()
        connection.send(("model", (lines[0] if lines else type(error).__name__, None, None)))
    finally:
        connection.close()
    os._exit(0)


def call_isolated(
    function: Callable[..., Any],
    *args: Any,
    timeout: float = CALL_TIMEOUT,
    memory_limit: int = CALL_MEMORY,
) -> Any:
    """``function(*args)`` computed in a spawned child (``function`` must be module-level so
    that it pickles by name; its result must be plain data). Errors come back as a one-line
    ``ModelError`` (with line and column where Storm gave them)."""
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_child, args=(function, args, memory_limit, sender, os.getpid()), daemon=True
    )
    process.start()
    sender.close()
    try:
        if not receiver.poll(timeout):
            raise ModelError(f"Storm took longer than {timeout:.0f} s")
        kind, payload = receiver.recv()
    except EOFError:
        process.join(5)
        raise ModelError(f"Storm crashed (exit status {process.exitcode})") from None
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join(5)
    if kind == "ok":
        return payload
    message, line, column = payload
    if kind == "model":
        raise ModelError(message, line=line, column=column)
    raise ExplaincheckError(message)  # pragma: no cover - no other kinds are sent

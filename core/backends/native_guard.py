"""A process's first generation with a llama.cpp binding runs in a child process first, so that
a crash of the native library becomes one clear error instead of a dead CLI, test suite or
window.

Why: a llama.cpp compiled on (or for) another CPU can use instructions this one does not run;
``llama-cpp-python`` built on a CPU that advertises AMX died with SIGILL (``tilezero``) on its
first generation, which killed the whole process without a word. Loading the model and
generating a few tokens in a spawned child (like the oracle's ``isolation``) shows whether the
binding works here; a binding and model file that passed once run in this process from then
on, so the check costs one child (about 2 s) per process and model.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from explaincheck.core.backends.llama_binding import load_model
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.isolation import die_with_parent

PROBE_SECONDS = 300.0  # loading and a few tokens take seconds; a hang must not block forever
PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}

_lock = threading.Lock()
_passed: set[tuple[str, str]] = set()  # (binding, model file) that generated in a child


def probe_generation(binding: str, path: str) -> None:
    """Load ``path`` with ``binding`` and generate a short constrained answer (in the child)."""
    model = load_model(Path(path), 512, binding)
    try:
        model.chat_json(
            "Is the sky blue? Answer in JSON.", PROBE_SCHEMA, temperature=0.0, seed=0, max_tokens=8
        )
    finally:
        model.close()


# What the child runs; a test replaces it with a function that dies by a signal.
PROBE: Callable[[str, str], None] = probe_generation


def check_first_generation(binding: str, path: Path, what: str) -> None:
    """Raise one clear ``ExplaincheckError`` when ``binding`` cannot generate with ``path``
    here (a crash, a hang or an error in the child); no-op once it could in this process."""
    key = (binding, str(path))
    with _lock:
        if key in _passed:
            return
        failure = run_in_child(PROBE, (binding, str(path)), PROBE_SECONDS)
        if failure is not None:
            name = "llama-cpp-python" if binding == "llama_cpp" else binding
            raise ExplaincheckError(
                f"{what}: llama.cpp ({name}) {failure} on its first generation"
                f"{_advice(binding, failure)}"
            )
        _passed.add(key)


def run_in_child(target: Callable[..., None], args: tuple[Any, ...], timeout: float) -> str | None:
    """Run ``target(*args)`` in a spawned child: None when it returned, else what went wrong
    in a few words (its exception, the signal that killed it, or a timeout)."""
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(target, args, sender, os.getpid()), daemon=True)
    process.start()
    sender.close()
    try:
        if not receiver.poll(timeout):
            process.kill()
            return f"took longer than {timeout:.0f} s"
        try:
            status, message = receiver.recv()
        except EOFError:  # the child died before it could answer
            status, message = "died", ""
    except BaseException:
        process.kill()  # interrupted (Ctrl-C): no orphan child
        raise
    finally:
        receiver.close()
        process.join(10)
    if status == "ok":
        return None
    if status == "error":
        return f"failed: {message}"
    return _death(process.exitcode)


def _child(
    target: Callable[..., None], args: tuple[Any, ...], connection: Connection, parent: int
) -> None:
    """Child body: output to /dev/null (llama.cpp's notes), run, report, exit at once."""
    die_with_parent(parent)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        target(*args)
        connection.send(("ok", None))
    except Exception as error:
        lines = str(error).strip().splitlines()
        connection.send(("error", lines[0] if lines else type(error).__name__))
    finally:
        connection.close()
    os._exit(0)  # no teardown of the native library: it may be what crashes


def _death(code: int | None) -> str:
    """The child's end in words: "crashed with SIGILL (illegal instruction)"."""
    if code is not None and code < 0:
        number = -code
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        described = signal.strsignal(number) or name
        return f"crashed with {name} ({described.lower()})"
    return f"ended its process (exit status {code})"


def _advice(binding: str, failure: str) -> str:
    """What to do instead, when there is something."""
    if binding == "llama_cpp" and "crashed" in failure:
        return (
            "; the compiled llama-cpp-python does not run on this CPU: use the prebuilt binding"
            " (EXPLAINCHECK_LLAMA_BINDING=xllamacpp)"
        )
    return ""

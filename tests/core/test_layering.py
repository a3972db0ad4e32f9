"""Layering (docs/architecture.md): every module under ``explaincheck.core`` imports with Qt absent.

A fresh interpreter installs a meta-path finder that refuses PySide6, qasync and
``explaincheck.gui``, then imports each module found by ``pkgutil.walk_packages``.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = r"""
import importlib, json, pkgutil, sys, traceback

BLOCKED = ("PySide6", "shiboken6", "qasync", "explaincheck.gui")


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError(f"blocked by the layering test: {name}")
        return None


sys.meta_path.insert(0, Blocker())
import explaincheck.core as core

names, failures = [], {}


def record(name):
    failures[name] = traceback.format_exc(limit=-3)


for info in pkgutil.walk_packages(core.__path__, "explaincheck.core.", onerror=record):
    names.append(info.name)
    try:
        importlib.import_module(info.name)
    except BaseException:
        record(info.name)
leaked = sorted(m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in BLOCKED))
print(json.dumps({"names": names, "failures": failures, "leaked": leaked}))
"""


def test_core_imports_without_qt():
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["failures"] == {}, "\n".join(
        f"{name}:\n{trace}" for name, trace in report["failures"].items()
    )
    assert report["leaked"] == []
    names = set(report["names"])
    for expected in (
        "explaincheck.core.oracle.compute",
        "explaincheck.core.oracle.isolation",
        "explaincheck.core.cli.main",
        "explaincheck.core.environments.registry",
    ):
        assert expected in names
    assert len(names) >= 30


def test_blocker_really_blocks():
    """The probe's finder does refuse Qt (so a passing layering test means something)."""
    probe = PROBE.split("import explaincheck.core as core")[0] + (
        "try:\n    import PySide6.QtCore\nexcept ImportError as error:\n    print('blocked')\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "blocked", run.stdout + run.stderr

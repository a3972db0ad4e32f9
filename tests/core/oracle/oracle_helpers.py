"""Shared helpers of the oracle tests: test model paths, the benchmark gridworld, state lookup."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

from explaincheck.core.oracle.arrays import ChoiceArrays
from explaincheck.core.oracle.types import OracleResult, StateFacts

ROOT = Path(__file__).resolve().parents[3]
MODELS = ROOT / "tests" / "models"


def model(name: str) -> str:
    """Path of a test model under tests/models (``name`` without ``.prism``)."""
    return str(MODELS / f"{name}.prism")


def _gridworld_prism(n: int, listed: bool = False) -> str:
    """``benchmarks/gridworld.py``'s model text (the benchmarks folder is not a package)."""
    spec = importlib.util.spec_from_file_location("gridworld", ROOT / "benchmarks" / "gridworld.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.gridworld_prism(n, listed=listed)


def gridworld_text(n: int) -> str:
    """The benchmark's slippery N×N gridworld as PRISM text, holes listed cell by cell (the
    reference's value iteration for D converges on that layout, not on the hashed one)."""
    return _gridworld_prism(n, listed=True)


def gridworld_arrays(folder: Path, n: int) -> tuple[ChoiceArrays, np.ndarray]:
    """The benchmark's slippery N×N gridworld (its hashed holes) built by Storm in floats and
    read in bulk: its choice arrays and its goal states, for the policy-iteration solves."""
    from explaincheck.core.oracle.storm import building
    from explaincheck.core.oracle.storm.bulk import read_bulk
    from explaincheck.core.oracle.types import OracleRequest

    path = folder / f"grid{n}.prism"
    path.write_text(_gridworld_prism(n))
    parsed = building.parse(OracleRequest(str(path)))
    bulk = read_bulk(building.build(parsed, exact=False, state_limit=10**6, path=str(path)))
    return bulk.arrays, bulk.with_label("goal")


def state(result: OracleResult, **valuation: int | bool) -> StateFacts:
    """The unique state whose valuation includes ``valuation``."""
    found = [s for s in result.states if all(s.valuation.get(k) == v for k, v in valuation.items())]
    assert len(found) == 1, f"{len(found)} states match {valuation}"
    return found[0]


def fraction(text: str | None) -> Fraction:
    assert text is not None, "no exact value"
    return Fraction(text)


def key(facts: StateFacts) -> tuple:
    """A state's valuation as a sorted tuple (the join key with the reference)."""
    return tuple(sorted(facts.valuation.items()))


def explaincheck_command() -> list[str]:
    """The installed ``explaincheck`` console script (next to this Python, else on PATH)."""
    script = Path(sys.executable).parent / "explaincheck"
    found = str(script) if script.exists() else shutil.which("explaincheck")
    assert found, "the explaincheck console script is not installed"
    return [found]

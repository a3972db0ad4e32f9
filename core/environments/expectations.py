"""Each environment's test expectations, read from its own folder (``expect.toml``, the format
in docs/adding-an-environment.md): the generic tests iterate the environments and take what to
expect from here, so a new environment is its folder alone and no test names it. In core, not
in the tests, because ``explaincheck plugins check`` holds a plugin's environments to the same
file (``core/plugin_checks.py``)."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from explaincheck.core.environments.registry import BUILTIN_IDS, builtin_folder
from explaincheck.core.oracle.types import StateFacts

EXPECT_NAME = "expect.toml"
KEYS = {
    "states",
    "bottlenecks",
    "dead_ends",
    "initial_value",
    "tolerance",
    "danger_is_one_minus_value",
    "initial_words",
    "also_builds",
}


@dataclass(frozen=True)
class Expectations:
    """What one environment's oracle and words must show with its default constants."""

    env_id: str
    states: int
    bottlenecks: int
    dead_ends: int
    initial_value: Fraction | float  # a fraction is compared exactly under the exact method
    tolerance: float
    danger_is_one_minus_value: bool
    initial_words: str
    also_builds: tuple[str, ...]  # further constants the well-formedness test builds with

    def value_holds(self, state: StateFacts) -> bool:
        """Whether ``state``'s V is the expected one: exactly when both are fractions, else
        within the tolerance."""
        exact = state.exact_value()
        if isinstance(self.initial_value, Fraction) and exact is not None and not self.tolerance:
            return exact == self.initial_value
        return math.isclose(state.value, float(self.initial_value), abs_tol=self.tolerance or 1e-9)


class ExpectationsError(AssertionError):
    """An ``expect.toml`` that is missing or cannot be read: a test failure naming the file (an
    AssertionError), and a finding of ``explaincheck plugins check``."""


def read_expectations(folder: Path, env_id: str | None = None) -> Expectations:
    """The expectations of the environment in ``folder``; a missing file or key, or an unknown
    key, is an ``ExpectationsError`` naming the file (a test failure, not a crash)."""
    path = folder / EXPECT_NAME
    if not path.is_file():
        raise ExpectationsError(f"{path}: missing (every environment gives its test expectations)")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ExpectationsError(f"{path}: cannot be read ({error})") from None
    unknown = set(raw) - KEYS
    if unknown:
        raise ExpectationsError(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(KEYS)}")
    missing = KEYS - {"tolerance", "also_builds"} - set(raw)
    if missing:
        raise ExpectationsError(f"{path}: missing keys {sorted(missing)}")
    value = raw["initial_value"]
    return Expectations(
        env_id=env_id or folder.name,
        states=int(raw["states"]),
        bottlenecks=int(raw["bottlenecks"]),
        dead_ends=int(raw["dead_ends"]),
        initial_value=Fraction(value) if isinstance(value, str) else float(value),
        tolerance=float(raw.get("tolerance", 0.0)),
        danger_is_one_minus_value=bool(raw["danger_is_one_minus_value"]),
        initial_words=str(raw["initial_words"]),
        also_builds=tuple(str(c) for c in raw.get("also_builds", ())),
    )


def expected(env_id: str) -> Expectations:
    return read_expectations(builtin_folder(env_id), env_id)


def all_expected() -> dict[str, Expectations]:
    """Every environment folder's expectations, in the registry's order."""
    return {env_id: expected(env_id) for env_id in BUILTIN_IDS}

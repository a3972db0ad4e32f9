"""Fixtures of the oracle tests: oracle results computed once per session (in process)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from oracle_helpers import gridworld_text

from explaincheck.core.oracle import compute_in_process
from explaincheck.core.oracle.types import OracleRequest, OracleResult


@pytest.fixture(scope="session")
def oracle() -> Callable[..., OracleResult]:
    """``oracle(request)``: ``compute_in_process`` memoised by request."""
    memo: dict[OracleRequest, OracleResult] = {}

    def compute(request: OracleRequest) -> OracleResult:
        if request not in memo:
            memo[request] = compute_in_process(request)
        return memo[request]

    return compute


@pytest.fixture(scope="session")
def gridworld(tmp_path_factory) -> Callable[[int], str]:
    """``gridworld(n)``: path of the benchmark's N×N gridworld written once per session."""
    folder: Path = tmp_path_factory.mktemp("gridworld")

    def path(n: int) -> str:
        target = folder / f"gridworld{n}.prism"
        if not target.exists():
            target.write_text(gridworld_text(n))
        return str(target)

    return path

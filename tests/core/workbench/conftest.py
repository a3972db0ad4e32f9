"""Frozen Lake and the flip model, with their oracles and exact transitions (built once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explaincheck.core.environments.registry import resolve
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.workbench.transitions import load_transitions

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="session")
def lake():
    request = resolve("frozen_lake").request()
    return request, compute_oracle(request), load_transitions(request)


@pytest.fixture(scope="session")
def flip_request():
    return OracleRequest(str(MODELS / "flip.prism"))

"""Attach the factor truth to a campaign's oracle (what the ``factors`` category grades with)."""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.factors.declare import factors_of
from explaincheck.core.factors.intervene import Compute, compute_factor_truth
from explaincheck.core.factors.types import factor_truth, with_factors
from explaincheck.core.oracle.types import OracleRequest, OracleResult


def attach_factors(
    oracle: OracleResult,
    environment: Environment,
    request: OracleRequest,
    compute: Compute | None = None,
) -> OracleResult:
    """``oracle`` with the truth of the environment's factors (unchanged if already there)."""
    if factor_truth(oracle) is not None:
        return oracle
    factors = factors_of(environment, oracle.model.variables)
    return with_factors(oracle, compute_factor_truth(factors, oracle, request, compute))

"""Attach a policy to an oracle: load, solve the induced chain, carry it (``PolicyOracle``)."""

from __future__ import annotations

from pathlib import Path

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.chain import solve_policy
from explaincheck.core.policy.loading import load_policy
from explaincheck.core.policy.types import Policy, PolicyOracle, with_policy


def attach(oracle: OracleResult, policy: Policy) -> PolicyOracle:
    """``oracle`` with the induced chain of ``policy``."""
    return with_policy(oracle, solve_policy(oracle, policy))


def attach_file(oracle: OracleResult, path: str | Path, default: str = "") -> PolicyOracle:
    """``oracle`` with the policy in the table at ``path`` (``--policy FILE``)."""
    return attach(oracle, load_policy(path, oracle, default).policy)

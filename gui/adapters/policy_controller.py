"""Open policy…: load a policy table against the open model, off the GUI thread.

The result is the model's oracle with the policy's induced chain attached (``PolicyOracle``);
the window hands it to every view as it does a fresh oracle, so the graph draws π, the
inspector shows π(s), V^π(s) and the regret, the Campaign tab offers the policy categories and
a campaign run from the window grades them against this chain.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import PolicyOracle
from explaincheck.gui.support.tasks import in_thread

FILTER = "Policy tables (*.csv *.json);;All files (*)"


def _attach(oracle: OracleResult, path: str, default: str) -> PolicyOracle:
    from explaincheck.core.policy.attach import attach_file

    base = oracle
    if isinstance(oracle, PolicyOracle):  # replacing a policy: start from the bare oracle
        base = oracle_without_policy(oracle)
    return attach_file(base, path, default)


def oracle_without_policy(oracle: PolicyOracle) -> OracleResult:
    from dataclasses import replace

    fields = {name: getattr(oracle, name) for name in OracleResult.__dataclass_fields__}
    fields["model"] = replace(oracle.model, content_hash=oracle.base_hash)
    return OracleResult(**fields)


async def load_policy(oracle: OracleResult, path: str, default: str = "") -> PolicyOracle:
    """``oracle`` with the policy at ``path`` (an ``ExplaincheckError`` names a bad row)."""
    return await in_thread(_attach, oracle, path, default)


def _loss_table(oracle: OracleResult, rows: list[dict]) -> Any:
    from explaincheck.core.policy.stored import loss_table, stored_policies
    from explaincheck.core.policy.types import policy_chain

    chains: dict = {}
    loaded = policy_chain(oracle)
    shown = Path(loaded.policy.source).name if loaded is not None else ""
    if loaded is not None:
        chains[shown] = (loaded, None)
    base = oracle_without_policy(oracle) if isinstance(oracle, PolicyOracle) else oracle
    for llm, found in stored_policies(rows, base).items():
        if loaded is not None and loaded.policy.source == f"llm:{llm}":
            # the LLM's policy on show (asked from the window): one row, as attached
            chains[f"LLM {llm}"] = (chains.pop(shown)[0], found[1])
        else:
            chains[f"LLM {llm}"] = found
    return loss_table(chains)


async def policy_loss_table(oracle: OracleResult, rows: list[dict]) -> Any:
    """The value-loss table of the loaded policy and the stored LLM policies (worker thread)."""
    return await in_thread(_loss_table, oracle, rows)

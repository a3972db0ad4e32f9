"""The window's self-check: the figures of every LLM whose self-check is stored for the open
model, computed off the GUI thread from the results file's rows (``core/analysis/selfcheck``),
for the policy view's Self-check box. File › Ask an LLM for its policy… runs the check itself
(``gui/llm_policy``) when "then ask it about its own policy" is ticked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import PolicyOracle
from explaincheck.gui.support.tasks import in_thread

if TYPE_CHECKING:
    import pandas as pd


def _table(oracle: OracleResult, rows: list[dict[str, Any]]) -> pd.DataFrame | None:
    import pandas as pd

    from explaincheck.core.analysis.selfcheck import (
        figures_table,
        llms_checked,
        selfcheck_figures,
    )
    from explaincheck.gui.adapters.policy_controller import oracle_without_policy

    base = oracle_without_policy(oracle) if isinstance(oracle, PolicyOracle) else oracle
    tables = []
    for llm in llms_checked(rows):
        figures = selfcheck_figures(rows, base, llm)
        if figures is not None and (figures.states or figures.questions):
            tables.append(figures_table(figures).set_index("figure"))
    return pd.concat(tables, axis=1).reset_index() if tables else None


async def selfcheck_table(oracle: OracleResult, rows: list[dict[str, Any]]) -> pd.DataFrame | None:
    """The Self-check box's table (figure × LLM), None without a stored self-check."""
    return await in_thread(_table, oracle, rows)

"""The report's self-check section: for every LLM checked by ``explaincheck selfcheck`` in the
results file, its say–do agreement, its accuracy on its own policy against the two controls and
its value loss beside its best-action score (``analysis/selfcheck.py``).

Why the oracle is recomputed here: the figures need A*(s) and the act policy's chain, which
come from the model; as for the value-loss table (``policy.stored.environment_policies``) the
environment is opened at its default constants, and rows of other constants do not match its
model hash, so they are left out rather than misread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from explaincheck.core.analysis.report_parts import Section
from explaincheck.core.analysis.selfcheck import (
    SelfCheckFigures,
    figures_table,
    llms_checked,
    selfcheck_figures,
)
from explaincheck.core.campaign.selfcheck import SAY_SELECTION
from explaincheck.core.environments.registry import resolve
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle import compute_oracle

if TYPE_CHECKING:
    from explaincheck.core.analysis.report_sections import ReportInputs

NOTE = (
    "say–do agreement = mean over the states it acted in of π(a_say | s), the probability that "
    "its own policy takes the action it calls best (asked in other words than the act "
    "question), with a Wilson 95% interval; saying/doing right = share of the disagreeing mass "
    "where the named action / the action taken is optimal (ties: both can be). Own / optimal / "
    "uniform: the same policy questions about its own policy and the two controls, corrected = "
    "mean (score − chance) / (1 − chance); paired tests over the questions all three have. "
    "docs/method.md, Self-check."
)


def all_figures(results: pd.DataFrame) -> list[SelfCheckFigures]:
    """The figures of every (environment, LLM) with self-check rows."""
    if "selection" not in results.columns or not (results["selection"] == SAY_SELECTION).any():
        return []
    found = []
    for environment, rows in results.groupby("environment", sort=False):
        records = rows.to_dict("records")
        llms = llms_checked(records)
        if not llms:
            continue
        try:
            oracle = compute_oracle(resolve(str(environment)).request())
        except ExplaincheckError:
            continue  # a model file that moved: its rows cannot be rebuilt here
        for llm in llms:
            figures = selfcheck_figures(records, oracle, llm, str(environment))
            if figures is not None:
                found.append(figures)
    return found


def sections(results: pd.DataFrame) -> list[Section]:
    """One section (figure × LLM, per environment); none without self-check rows."""
    found = all_figures(results)
    if not found:
        return []
    tables = []
    for figures in found:
        table = figures_table(figures).set_index("figure")
        table.columns = [f"{figures.llm} ({figures.environment})"]
        tables.append(table)
    return [
        Section(
            "selfcheck",
            "Self-check: does the LLM explain its own policy?",
            pd.concat(tables, axis=1).reset_index(),
            note=NOTE,
        )
    ]


def selfcheck(inputs: ReportInputs) -> list[Section]:
    """The report's part (``report.PARTS``): the section over the scored rows."""
    return sections(inputs.results)

"""Model comparison (RQ2): how each LLM scores over the environments, next to random guessing.

An LLM's score is the mean over environments of its Table 1 average (itself the unweighted mean
over the applicable categories), per selection and over both. The random baseline is averaged
over the same environments as the LLM, so an LLM run on fewer environments is still compared
like for like.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from explaincheck.core.analysis.layout import BASELINE_LLM, order_llms
from explaincheck.core.analysis.scores import (
    SELECTIONS,
    average_scores,
    cells_for,
    selections_present,
)


def model_comparison(
    results: pd.DataFrame, baseline: str = BASELINE_LLM, cells: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Index llm; columns per selection that ran, mean, environments, baseline, vs_baseline.

    ``baseline`` and ``vs_baseline`` are NaN when the baseline did not run on those
    environments. ``cells``: ``cell_scores(results)`` if computed already.
    """
    averages = average_scores(cells_for(results, cells))
    selections = selections_present(results)
    per_env = averages.pivot_table(
        index=["llm", "environment"], columns="selection", values="score", sort=False
    )
    per_env = per_env.reindex(columns=[s for s in SELECTIONS if s in selections])
    per_env["mean"] = per_env.mean(axis=1)
    base = per_env.xs(baseline, level="llm")["mean"] if baseline in per_env.index else None
    rows = []
    for llm in order_llms(averages["llm"]):
        mine = per_env.xs(llm, level="llm")
        row = {s: mine[s].mean() for s in selections}
        row["mean"] = mine["mean"].mean()
        row["environments"] = len(mine)
        shared = base.reindex(mine.index).dropna() if base is not None else pd.Series()
        row["baseline"] = shared.mean() if len(shared) else np.nan
        same = mine.loc[shared.index, "mean"].mean() if len(shared) else np.nan
        row["vs_baseline"] = same - row["baseline"]
        rows.append(pd.Series(row, name=llm))
    columns = [*selections, "mean", "environments", "baseline", "vs_baseline"]
    frame = pd.DataFrame(rows, columns=columns)
    frame.index.name = "llm"
    frame["environments"] = frame["environments"].astype(int)
    return frame

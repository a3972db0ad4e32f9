"""What a campaign costs: tokens, wall time and tokens per second per execution, from the stored
``latency``, ``prompt_tokens`` and ``completion_tokens``, and how long a campaign of a given size
would take at the measured rate.

Only replies actually generated count towards the rate: cached replies (answered from the
reply cache) and executions without a reply are left out. ``campaign_seconds`` is a pure
function so the GUI can estimate a campaign before it runs.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from explaincheck.core.analysis.layout import order_categories, order_llms
from explaincheck.core.taxonomy.base import ERROR


def measured(results: pd.DataFrame) -> pd.DataFrame:
    """Executions that were really generated and timed (not cached, not ``error``)."""
    frame = results[(results["verdict"] != ERROR) & results["latency"].notna()]
    if "cached" in frame.columns:
        frame = frame[~frame["cached"].fillna(False).astype(bool)]
    return frame


def cost_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per LLM and category, and per LLM over all categories: executions, mean seconds per
    execution, mean prompt and completion tokens, generated tokens per second and total seconds.
    """
    frame = measured(results)
    if frame.empty:
        return pd.DataFrame()
    frame = frame.assign(
        prompt_tokens=pd.to_numeric(frame["prompt_tokens"]),
        completion_tokens=pd.to_numeric(frame["completion_tokens"]),
    )
    rows = []
    for llm in order_llms(frame["llm"].unique()):
        mine = frame[frame["llm"] == llm]
        for category in [*order_categories(mine["category"].unique()), "all"]:
            part = mine if category == "all" else mine[mine["category"] == category]
            rows.append({"llm": llm, "category": category, **_costs(part)})
    return pd.DataFrame(rows).set_index(["llm", "category"])


def _costs(part: pd.DataFrame) -> dict[str, float]:
    seconds = float(part["latency"].sum())
    generated = part["completion_tokens"].sum(min_count=1)
    return {
        "executions": len(part),
        "seconds_each": float(part["latency"].mean()),
        "prompt_tokens": float(part["prompt_tokens"].mean()),
        "completion_tokens": float(part["completion_tokens"].mean()),
        "tokens_per_second": float(generated / seconds) if seconds > 0 else np.nan,
        "seconds_total": seconds,
    }


def seconds_per_execution(results: pd.DataFrame) -> dict[str, float]:
    """LLM -> mean measured seconds per execution (the rate ``campaign_seconds`` takes)."""
    frame = measured(results)
    return {str(llm): float(t) for llm, t in frame.groupby("llm")["latency"].mean().items()}


def campaign_seconds(
    executions: Mapping[str, int],
    seconds_each: Mapping[str, float],
    *,
    concurrency: Mapping[str, int] | None = None,
    serial: bool = False,
) -> float:
    """Expected wall time of a campaign: ``executions[llm]`` requests at ``seconds_each[llm]``,
    ``concurrency[llm]`` in flight (1 by default). LLMs run side by side (the slowest decides),
    unless ``serial`` (e.g. local models, which share one worker thread: the times add up).
    An LLM without a measured rate is a KeyError: the caller says it cannot estimate."""
    times = [
        executions[llm] * seconds_each[llm] / max(1, (concurrency or {}).get(llm, 1))
        for llm in executions
    ]
    if not times:
        return 0.0
    return float(sum(times) if serial else max(times))

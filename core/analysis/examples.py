"""A few stored invalid replies per LLM, so a report shows why answers could not be parsed.

Replies are untrusted text: this module only selects and shortens them (and strips control
characters that could drive a terminal); every renderer must still escape them.
"""

from __future__ import annotations

import unicodedata

import pandas as pd

from explaincheck.core.analysis.layout import order_llms
from explaincheck.core.analysis.scores import check_columns
from explaincheck.core.taxonomy.base import INVALID


def printable(text: object, limit: int | None = None) -> str:
    """Text without control characters (newlines become spaces), cut to ``limit`` characters."""
    raw = "" if text is None else str(text)
    cleaned = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in raw
    )
    if limit is not None and len(cleaned) > limit:
        cleaned = cleaned[: max(limit - 1, 0)] + "…"
    return cleaned


def invalid_examples(results: pd.DataFrame, per_llm: int = 3, limit: int = 200) -> pd.DataFrame:
    """Up to ``per_llm`` invalid executions per LLM (first by environment and category)."""
    check_columns(results, ("reply", "reason"))
    invalid = results[results["verdict"] == INVALID]
    columns = ["llm", "environment", "category", "case_key", "reply", "reason"]
    picked = []
    for llm in order_llms(invalid["llm"]):
        rows = invalid[invalid["llm"] == llm].sort_values(["environment", "category", "case_key"])
        picked.append(rows.head(per_llm))
    if not picked:
        return pd.DataFrame(columns=columns)
    frame = pd.concat(picked)[columns].reset_index(drop=True)
    frame["reply"] = [printable(r, limit) for r in frame["reply"]]
    frame["reason"] = [printable(r, limit) for r in frame["reason"]]
    return frame

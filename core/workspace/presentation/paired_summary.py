"""Which differences between two LLMs survive: McNemar's exact test per category and Holm's
correction across categories (``core.analysis.paired.compare``), as rows for the side-by-side
view. Runs on a worker thread: the paired bootstrap resamples thousands of times."""

from __future__ import annotations

from typing import Any

SURVIVES = "survives Holm"
DOES_NOT = "does not survive"


def paired_summary(rows: list[dict[str, Any]], llm_a: str, llm_b: str) -> list[dict[str, Any]]:
    """One dict per category (and ``all``): pairs, scores, difference with its CI, McNemar p,
    Holm p and the verdict text (the overall row is one test of its own, judged by its p)."""
    import pandas as pd

    from explaincheck.core.analysis.paired import OVERALL, compare

    frame = pd.DataFrame(rows)
    needed = {"environment", "category", "case_key", "repeat", "llm", "verdict"}
    if frame.empty or not needed <= set(frame.columns):
        return []
    table = compare(frame, llm_a, llm_b)
    found = []
    for category, cell in table.iterrows():
        overall = category == OVERALL
        found.append(
            {
                "category": str(category),
                "pairs": int(cell["pairs"]),
                "score_a": float(cell["score_a"]),
                "score_b": float(cell["score_b"]),
                "difference": float(cell["difference"]),
                "diff_low": float(cell["diff_low"]),
                "diff_high": float(cell["diff_high"]),
                "p_mcnemar": float(cell["p_mcnemar"]),
                "p_holm": None if overall else float(cell["p_holm"]),
                "survives": bool(cell["significant"]),
                "mark": (
                    ("significant (p < 0.05)" if cell["significant"] else "not significant")
                    if overall
                    else (SURVIVES if cell["significant"] else DOES_NOT)
                ),
            }
        )
    return found

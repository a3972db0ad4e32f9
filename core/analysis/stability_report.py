"""The report's stability part: flaky share, pass@1 / pass@k / pass^k, and the quarantine list.

Why in the report: a score over repeats hides whether a case passes always or half the time; a
team reading Table 1 needs to know which cells rest on flaky cases and which cases to
quarantine (docs/method.md, "Stability over repeats"). Only campaigns run with ``--repeat k``
(k ≥ 2) have this part.
"""

from __future__ import annotations

import pandas as pd

from explaincheck.core.analysis.report_parts import CSV, HTML, MARKDOWN, Section
from explaincheck.core.analysis.stability import CONFIDENCE, pass_k_table, quarantine

KEYS = ("stability", "quarantine")


def stability_sections(results: pd.DataFrame) -> list[Section]:
    """The two sections, or none when no case was asked twice."""
    table = pass_k_table(results)
    if table.empty:
        return []
    flaky = quarantine(results)
    return [
        Section(
            "stability",
            "Stability over repeats — flaky share, pass@1, pass@k and pass^k",
            table,
            note=(
                "flaky = share of cases whose repeats disagree: the exact "
                f"{CONFIDENCE:.0%} Clopper–Pearson interval of their pass probability excludes "
                "both 0 and 1. pass@k = chance that at least one of k repeats passes, pass^k = "
                "that all k pass (the unbiased estimators of Inspect's pass_at / pass_k "
                "reducers; k = the repeats asked). pass^k ≤ pass@1 ≤ pass@k."
            ),
        ),
        Section(
            "quarantine",
            f"Quarantine — the {len(flaky)} flaky (case, LLM) pairs",
            flaky.drop(columns="case_key") if len(flaky) else flaky,
            note="Leave them out of a comparison with `explaincheck compare --exclude-flaky`.",
            formats=frozenset({MARKDOWN, HTML, CSV}),
        ),
    ]

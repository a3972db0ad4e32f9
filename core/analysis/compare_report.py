"""The report's comparison with a base campaign (``report --base BASE.sqlite``).

Why in the report: the report of a new campaign is read with the question "is it better or
worse than the last one?"; the answer is the same gate ``explaincheck compare`` applies
(core/analysis/compare.py), one table per LLM both files hold.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from explaincheck.core.analysis.compare import INTERVAL, compare_campaigns, llms_of
from explaincheck.core.analysis.report_parts import Section
from explaincheck.core.errors import ExplaincheckError


def base_sections(base: pd.DataFrame, results: pd.DataFrame, base_name: str) -> list[Section]:
    """One section per LLM of ``results`` also in ``base`` (or the two single LLMs)."""
    ours, theirs = llms_of(results), llms_of(base)
    shared = [llm for llm in ours if llm in theirs]
    pairs = [(llm, llm) for llm in shared]
    if not pairs and len(ours) == len(theirs) == 1:
        pairs = [(theirs[0], ours[0])]
    if not pairs:
        raise ExplaincheckError(
            f"--base {base_name}: no LLM in common (base: {', '.join(theirs)}; this campaign:"
            f" {', '.join(ours)})"
        )
    name = Path(base_name).name
    found = []
    for base_llm, new_llm in pairs:
        comparison = compare_campaigns(
            base, results, base_llm, new_llm, names=(base_name, "this campaign")
        )
        verdict = (
            "REGRESSION in "
            + ", ".join("overall" if x.category == "all" else x.category for x in comparison.failed)
            if comparison.regression
            else "no regression"
        )
        found.append(
            Section(
                f"compare_{_slug(new_llm)}",
                f"Compared with the base {name} — {new_llm} (base: {base_llm}): {verdict}",
                comparison.table(),
                note=(
                    f"{comparison.pairs} cases paired; left out: {comparison.only_base} only in "
                    f"the base, {comparison.only_new} only here. difference = this campaign − "
                    "base; p = one-sided exact McNemar (worse than the base), Holm over the "
                    "categories and the overall line; regression = p_holm < 0.05; ci = "
                    f"{INTERVAL.replace('new − base', 'this campaign − base')}; mde = the "
                    "smallest drop detected with power 0.8 at these pairs. The same gate as "
                    "`explaincheck compare`."
                ),
            )
        )
    return found


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text).strip("_") or "llm"

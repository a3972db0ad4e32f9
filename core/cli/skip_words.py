"""How the command line names a category a campaign or listing leaves out, in the right words:
"not applicable" only where the model has no test case for it; an opt-in category is "on
request", one left out by a caveat or a small budget is "left out" or "skipped"."""

from __future__ import annotations

from typing import Any


def skip_line(plan: Any, category: str, why: str) -> str:
    """One line of ``run``'s plan summary for a category without executions."""
    from explaincheck.core.taxonomy.registry import CATEGORIES

    if CATEGORIES[category].on_request(plan.oracle):
        return f"{category}: left out by default (asked only by id: --categories {category})"
    if why.startswith("left out"):
        return f"{category}: {why}"
    if "--budget" in why:
        return f"{category}: skipped ({why})"
    return f"{category}: not applicable ({why})"


def on_request(oracle: Any) -> list[str]:
    """The opt-in categories that are missing on ``oracle`` only because nobody asked."""
    from explaincheck.core.taxonomy.registry import CATEGORIES

    return [cid for cid, category in CATEGORIES.items() if category.on_request(oracle)]

"""Opening a results file with no model open: the model its rows were tested on opens as it
was tested (the constants and goal/unsafe labels of the file's last campaign on it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from explaincheck.core.environments.registry import BUILTIN_IDS
from explaincheck.core.store.records import StoredExecution


def model_to_open(executions: Sequence[StoredExecution]) -> str | None:
    """The environment of the first row, when it can be opened here (a built-in, or a PRISM
    file that exists on this machine); None otherwise."""
    if not executions:
        return None
    first = executions[0].environment
    if first in BUILTIN_IDS or (first and Path(first).is_file()):
        return first
    return None


def campaign_model(campaigns: Sequence[Any], environment: str) -> dict[str, str]:
    """The constants, goal/unsafe labels and property the file's last campaign on
    ``environment`` was run with ("" where it used the model's own), to open that model as it
    was tested."""
    for campaign in reversed(campaigns):
        if campaign.environment != environment:
            continue
        settings, extra = campaign.settings, campaign.extra or {}
        return {
            "constants": str(extra.get("constants") or settings.get("constants") or ""),
            "goal_label": str(settings.get("goal_label") or ""),
            "unsafe_label": str(settings.get("unsafe_label") or ""),
            # the property it was asked about (--property text; "": Pmax=? [F goal])
            "property": str(settings.get("property_text") or ""),
        }
    return {}

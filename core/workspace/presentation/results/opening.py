"""Opening a results file with no model open: the model its rows were tested on opens as it
was tested (the constants and goal/unsafe labels of the file's last campaign on it), and what
it cannot open is said: the plugin package, and version, a campaign was made with."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from explaincheck.core.campaign.plugin_record import missing_plugins
from explaincheck.core.environments.registry import registered_id
from explaincheck.core.store.records import StoredExecution


def model_to_open(executions: Sequence[StoredExecution]) -> str | None:
    """The environment of the first row, when it can be opened here (a built-in, or a PRISM
    file that exists on this machine); None otherwise."""
    if not executions:
        return None
    first = executions[0].environment
    if registered_id(first) is not None or (first and Path(first).is_file()):
        return first
    return None


def missing_plugin_line(campaigns: Sequence[Any]) -> str | None:
    """What the file's campaigns need that is not installed here, in one line: the plugin
    package and version to install (the rows show as stored; their model cannot open)."""
    missing = missing_plugins(campaigns)
    if not missing:
        return None
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    return f"{missing[0]}{more}"


def campaign_model(campaigns: Sequence[Any], environment: str) -> dict[str, str]:
    """The constants and goal/unsafe labels the file's last campaign on ``environment`` was
    run with ("" where it used the model's own), to open that model as it was tested."""
    for campaign in reversed(campaigns):
        if campaign.environment != environment:
            continue
        settings, extra = campaign.settings, campaign.extra or {}
        return {
            "constants": str(extra.get("constants") or settings.get("constants") or ""),
            "goal_label": str(settings.get("goal_label") or ""),
            "unsafe_label": str(settings.get("unsafe_label") or ""),
        }
    return {}

"""Opening a results file: the model its rows were tested on opens as it was tested (the
constants and goal/unsafe labels of the file's last campaign on it), unless the open model is
the one its rows were graded on; a model that cannot be opened here is named instead, so the
graph and the inspector never pass for the file's model (issue 50); what it cannot open for want
of a plugin is said: the plugin package, and version, a campaign was made with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explaincheck.core.campaign.plugin_record import missing_plugins
from explaincheck.core.environments.registry import registered_id
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.store.records import StoredExecution
from explaincheck.core.workspace.presentation.results.rows import environment_name


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


@dataclass(frozen=True)
class FileModel:
    """What opening a results file does to the open model: ``open`` the model its rows were
    tested on (its environment id or PRISM file; None: keep the open one), and what to say."""

    open: str | None
    said: str = ""


def file_model(
    executions: Sequence[StoredExecution],
    oracle: OracleResult | None,
    open_id: str | None,
    open_title: str,
    file_name: str,
) -> FileModel:
    """The model a results file wants beside the open one (``oracle``, built from the
    environment ``open_id`` shown as ``open_title``; None and "" when no model is open): the
    open model stays when any row was graded on it (or, still building, it is the rows'
    environment, or carries a policy over the rows' environment); otherwise the rows' model
    opens, or, when it cannot be opened here (a PRISM file not on this machine), the line says
    that the graph shows another model."""
    if not executions:
        return FileModel(None)
    first = executions[0].environment
    if oracle is not None:
        # with a policy attached the model's hash names the policy; the rows of questions
        # about the model itself carry the hash without it (``PolicyOracle.base_hash``)
        base = getattr(oracle, "base_hash", "")
        hashes = {oracle.model.content_hash, base} - {""}
        if any(e.model_hash in hashes for e in executions):
            return FileModel(None)
        if base and open_id == first:
            return FileModel(None)  # its model with another policy: the loaded one stays
    elif open_id is not None and open_id == first:
        return FileModel(None)  # the same model, still building
    wanted = model_to_open(executions)
    tested = environment_name(first)
    if wanted is None:
        if not open_title:
            return FileModel(None)
        return FileModel(
            None,
            f"{file_name} was tested on {tested}, which cannot be opened here: the graph and"
            f" the inspector show {open_title}, another model",
        )
    was = f" ({open_title} was open)" if open_title else ""
    return FileModel(wanted, f"Opened {tested}, the model {file_name} was tested on{was}")

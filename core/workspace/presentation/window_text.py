"""What the window's status bar says, as plain functions of plain values.

Qt-free so tests can check the wording without a window: the presenters (``gui/*_presenter.py``,
``gui/presenters/campaign_run.py``) only pass these lines to the status bar.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def oracle_text(oracle: Any, title: str) -> str:
    """The oracle's status line once it is built: method, where it came from, the model's size."""
    how = "cache" if oracle.from_cache else f"{oracle.seconds:.2f} s"
    tolerance = f", tie tolerance {oracle.tie_tolerance:g}" if oracle.tie_tolerance else ""
    return (
        f"Oracle: {oracle.method}{tolerance} ({how}) · {title} · "
        f"{oracle.model.states} states, {oracle.model.transitions} transitions"
    )


def planned_text(total: int, skipped: Mapping[str, Any]) -> str:
    """The campaign's plan: how many executions, and which categories were left out."""
    note = f" · skipped: {', '.join(skipped)}" if skipped else ""
    return f"Campaign: {total} executions planned{note}"


def regraded_text(graded: int, changed: int, satisfy_rule: str) -> str:
    return f"{graded} replies graded again under the {satisfy_rule} rule: {changed} changed verdict"


def policy_text(name: str, value: float, value_loss: float, filled: int, default: str) -> str:
    """A policy just attached: its value at s0 and its loss against the optimum."""
    defaulted = f" ({filled} states by the default {default})" if filled else ""
    value_text, loss_text = (f"{x:.4g}" if math.isfinite(x) else "∞" for x in (value, value_loss))
    return f"Policy {name}: V^π(s0) = {value_text}, value loss {loss_text}{defaulted}"


def saved_wording_text(written: object, folder: str) -> str:
    """Where the wording went, and the model file to open to use it."""
    return f"Saved {written}: edit it, then open {Path(folder) / 'model.prism'}"

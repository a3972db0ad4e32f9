"""The speed each LLM answered at on this machine, kept between runs, so an estimate made before
a run rests on a measurement when one exists (and says it is a guess when none does).

Why a small file in the cache folder and not only the open results file: a new campaign is
usually a new results file, and the kind's planning rate ("4 s per answer" for a local model)
was off by a factor of 35 on a loaded machine. Every run adds the latencies of the replies it
generated (cached replies took no time and are left out) to a running mean per LLM spec.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from explaincheck.core.backends.registry import answers_instantly
from explaincheck.core.cache_files import write_atomic
from explaincheck.core.campaign.plan import Plan
from explaincheck.core.paths import cache_dir
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import ERROR

FILE_NAME = "speeds.json"


def speeds_file() -> Path:
    return cache_dir() / FILE_NAME


def _read(path: Path) -> dict[str, dict[str, float]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or unreadable: an estimate then is a guess
    if not isinstance(data, dict):
        return {}
    kept: dict[str, dict[str, float]] = {}
    for spec, entry in data.items():
        if isinstance(entry, dict):
            seconds, answers = _number(entry.get("seconds")), _number(entry.get("answers"))
            if seconds is not None and answers is not None and answers > 0:
                kept[str(spec)] = {"seconds": seconds, "answers": answers}
    return kept


def _number(value: Any) -> float | None:
    """``value`` as a finite float, else None (JSON from disk is not trusted)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def measured_speeds(path: Path | None = None) -> dict[str, float]:
    """LLM spec -> mean seconds per generated answer measured on this machine."""
    return {spec: entry["seconds"] for spec, entry in _read(path or speeds_file()).items()}


def add_measurements(
    latencies: Mapping[str, list[float]], path: Path | None = None
) -> dict[str, float]:
    """Fold new latencies (spec -> seconds of each generated answer) into the running means;
    returns the means now kept."""
    path = path or speeds_file()
    table = _read(path)
    for spec, seconds in latencies.items():
        good = [s for s in map(_number, seconds) if s is not None and s >= 0]
        if not good:
            continue
        entry = table.get(spec, {"seconds": 0.0, "answers": 0.0})
        answers = entry["answers"] + len(good)
        entry["seconds"] = (entry["seconds"] * entry["answers"] + sum(good)) / answers
        entry["answers"] = answers
        table[spec] = entry
    if latencies:
        write_atomic(path, lambda stream: json.dump(table, stream, indent=1, sort_keys=True))
    return {spec: entry["seconds"] for spec, entry in table.items()}


def plan_latencies(plan: Plan, store: Store, since: str = "") -> dict[str, list[float]]:
    """The latencies of the plan's replies generated (not from the cache) and stored at or
    after ``since`` (an ISO time; "": all), per LLM."""
    keys = {e.key for e in plan.executions}
    found: dict[str, list[float]] = {}
    for row in store.iter_executions(lean=True):
        if row["exec_key"] not in keys or row.get("cached") or row.get("verdict") == ERROR:
            continue
        if answers_instantly(row["llm"]):  # computed replies: no speed worth keeping
            continue
        if since and str(row.get("finished_at") or "") < since:
            continue
        latency = _number(row.get("latency"))
        if latency is not None:
            found.setdefault(str(row["llm"]), []).append(latency)
    return found

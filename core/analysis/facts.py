"""Campaign facts: what was run, when, with which software and settings.

Why in the report: a table of scores means little to a colleague without the conditions it was
measured under (environment and constants, LLMs and their options, budget, seed, selection,
satisfy rule). Everything comes from the results file's campaign rows and executions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from explaincheck.core.campaign.plugin_record import plugins_in_words, recorded_plugins
from explaincheck.core.plural import counted
from explaincheck.core.store import VERSION_KEY, CampaignRow
from explaincheck.core.taxonomy.registry import CATEGORIES


def campaign_facts(campaigns: Sequence[CampaignRow]) -> pd.DataFrame:
    """One column per campaign, one row per fact (index ``fact``); the plugin packages a
    campaign used (distribution, version, what of theirs) when any did."""
    plugins = [recorded_plugins(c.settings) for c in campaigns]
    columns = {
        f"campaign {c.id}": {
            **_facts(c),
            **({"plugins": plugins_in_words(used)} if any(plugins) else {}),
        }
        for c, used in zip(campaigns, plugins, strict=True)
    }
    frame = pd.DataFrame(columns, dtype=object)
    frame.index.name = "fact"
    return frame


def llm_settings(results: pd.DataFrame) -> pd.DataFrame:
    """Per LLM: the hosts it was asked at and the request options it was sent."""
    rows = []
    for llm, group in results.groupby("llm", sort=True):
        hosts = sorted({str(h) for h in group.get("host", ()) if isinstance(h, str) and h})
        options = sorted({_json(o) for o in group.get("options", ()) if isinstance(o, dict) and o})
        rows.append(
            {
                "llm": llm,
                "hosts": ", ".join(hosts) or "–",
                "options": "; ".join(options) or "–",
                "executions": len(group),
            }
        )
    frame = pd.DataFrame(rows, columns=["llm", "hosts", "options", "executions"])
    return frame.set_index("llm")


def _facts(campaign: CampaignRow) -> dict[str, str]:
    settings = campaign.settings
    grading = settings.get("grading") or {}
    categories = settings.get("categories") or []
    repeat = settings.get("repeat", 1)
    return {
        "started": _minute(campaign.created_at),
        "last update": _minute(campaign.updated_at),
        "status": campaign.status,
        "explaincheck": str(settings.get(VERSION_KEY, "not recorded (older than 0.1.0)")),
        "environment": campaign.environment,
        "model file": str(campaign.extra.get("model_path", "")),
        "model hash": campaign.model_hash[:16],
        "constants": str(campaign.extra.get("constants") or settings.get("constants") or "–"),
        "goal / unsafe label": (
            f"{settings.get('goal_label') or 'goal'} / {settings.get('unsafe_label') or 'unsafe'}"
        ),
        "LLMs": ", ".join(map(str, settings.get("llms", []))),
        "categories": _categories(categories, settings.get("skipped") or {}),
        "budget": _budget(settings.get("budget")),
        "selection": _selection(settings.get("selection")),
        "repeats": str(repeat)
        + (f" (temperature {settings.get('repeat_temperature')})" if repeat != 1 else ""),
        "seed": _seeds(settings),
        "satisfy rule": _satisfy_rule(grading),
        "executions planned": str(campaign.planned),
    }


def category_caveats(campaigns: Sequence[CampaignRow]) -> list[str]:
    """Footnotes for categories that ran although they add nothing there (a safer that repeats
    more_promising because D = 1 − V everywhere): one per category and caveat, naming the
    environments."""
    return [
        f"{cid} in {', '.join(envs)}: {caveat}."
        for cid, caveat, envs in stored_notes(campaigns, "caveats")
    ]


def stored_notes(campaigns: Sequence[CampaignRow], key: str) -> list[tuple[str, str, list[str]]]:
    """(category, note, environments) for the per-category notes the campaigns stored under
    ``key`` in their settings, each note once with every environment it was made for."""
    found: dict[tuple[str, str], set[str]] = {}
    for campaign in campaigns:
        for category_id, note in (campaign.settings.get(key) or {}).items():
            found.setdefault((str(category_id), str(note)), set()).add(campaign.environment)
    return [(cid, note, sorted(envs)) for (cid, note), envs in sorted(found.items())]


def _categories(categories: list[str], skipped: dict[str, str]) -> str:
    """What was asked: the default set (less what it left out) or the ids given."""
    if not categories:
        left_out = [c for c, why in skipped.items() if str(why).startswith("left out by default")]
        return "default" + (f" (left out: {', '.join(left_out)})" if left_out else "")
    missing = [c for c in CATEGORIES if c not in categories]
    if not missing:
        return f"all {len(CATEGORIES)}"
    if len(missing) <= 2 and len(categories) > len(missing):
        return f"all but {', '.join(missing)}"
    return ", ".join(categories)


def _selection(value: Any) -> str:
    words = {"prioritized": "prioritised", "random": "random", "both": "prioritised and random"}
    return words.get(str(value), str(value))


def _satisfy_rule(grading: dict[str, Any]) -> str:
    rule = grading.get("satisfy_rule", "absolute")
    if rule == "absolute":
        return f"absolute: |p − V(s)| ≤ {grading.get('satisfy_tolerance', 0.05)}"
    if rule == "half":
        return "half: p and V(s) on the same side of ½"
    return str(rule)


def _minute(stamp: str) -> str:
    """``2026-11-30T22:04:48.452+00:00`` -> ``2026-11-30 22:04 UTC``."""
    if len(stamp) >= 16 and stamp[10] == "T":
        return f"{stamp[:10]} {stamp[11:16]} UTC"
    return stamp


def _seeds(settings: dict[str, Any]) -> str:
    """ "0" when one seed picked the cases and drew the answers, else "answers 1, cases 0"."""
    seed = str(settings.get("seed", "?"))
    case_seed = settings.get("case_seed")
    if case_seed is None or str(case_seed) == seed:
        return seed
    return f"answers {seed}, cases {case_seed}"


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _budget(budget: object) -> str:
    """ "7 cases per category" ("1 case per category"; "?" when not stored)."""
    if isinstance(budget, int) and not isinstance(budget, bool):
        return f"{counted(budget, 'case')} per category"
    return f"{budget if budget is not None else '?'} cases per category"

"""A split's held-out part as a frozen question set (``split --bench DIR``): the bench format, with
its sha256, so later runs ask exactly those questions (``bench run DIR``, ``bench grade``).

Why from the stored rows: the held-out questions are the ones the campaign asked, with the
prompts, schemas and expected answers it stored; re-planning would ask what today's explaincheck
plans. The manifest's recipe is the campaigns' (environments, categories, budget, selection,
seed, grading), so ``bench run`` re-plans each environment and keeps exactly the set's questions
(``asking.bench_plans``); the manifest says which split the set is the held-out part of. Only
campaigns a recipe can describe (the environment's own constants and labels, wording 0, no
metamorphic variants, the default selection rules) can be frozen this way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from explaincheck.core.analysis.chance import case_chance
from explaincheck.core.bench.questions import (
    VERSION,
    BenchSet,
    Question,
    Recipe,
    _manifest,
    write_set,
)
from explaincheck.core.campaign.split_file import Split
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import GradingSettings

# Campaign settings a recipe cannot carry, with the only value it can.
_RECIPE_DEFAULTS: dict[str, Any] = {
    "constants": None,
    "goal_label": None,
    "unsafe_label": None,
    "wordings": [0],
    "metamorphic": False,
    "keep_do_nothing": False,
    "min_gap": 0.0,
    "balance": True,
    "delta": "band",
    "shots": None,
}


def write_held_out_set(
    split: Split, split_sha256: str, db: str | Path, folder: str | Path
) -> BenchSet:
    """Freeze the held-out part of ``split`` (made from ``db``) into ``folder``."""
    held = {(c.environment, c.model_hash, c.case_key) for c in split.held_out}
    if not held:
        raise ExplaincheckError("--bench: the split's held-out part is empty")
    with Store.open(db, readonly=True) as store:
        campaigns = {c.id: c for c in store.campaigns()}
        rows = {}
        for row in store.iter_executions():
            key = (row["environment"], row["model_hash"], row["case_key"])
            if key in held and key not in rows:
                rows[key] = row
    used = {
        campaigns[r["campaign_id"]].model_hash: campaigns[r["campaign_id"]] for r in rows.values()
    }
    recipe = _recipe(sorted({k[0] for k in rows}), list(used.values()))
    questions = [_question(rows[k]) for k in sorted(rows, key=_order(split))]
    environments = [
        {
            "id": model["environment"],
            "model_hash": model["model_hash"],
            "constants": used[model["model_hash"]].extra.get("constants", ""),
            "states": model.get("states"),
            "skipped": {},
        }
        for model in split.models
        if model["model_hash"] in used
    ]
    manifest = _manifest(recipe, VERSION, questions, environments)
    manifest["held_out_of"] = {"split_sha256": split_sha256, "source": str(db)}
    bench = BenchSet(manifest, tuple(questions))
    write_set(bench, folder)
    return bench


def _order(split: Split) -> Any:
    position = {(c.environment, c.model_hash, c.case_key): i for i, c in enumerate(split.held_out)}
    return position.__getitem__


def _recipe(environments: list[str], campaigns: list[Any]) -> Recipe:
    """The one recipe of the campaigns, or one line naming what it cannot carry."""
    found = set()
    for campaign in campaigns:
        settings = campaign.settings
        for name, value in _RECIPE_DEFAULTS.items():
            if settings.get(name, value) != value:
                raise ExplaincheckError(
                    f"--bench: campaign {campaign.id} ran with {name} = {settings[name]!r}; a"
                    " frozen set can hold only campaigns of the benchmark's options"
                )
        grading = GradingSettings(**settings.get("grading", {}))
        found.add(
            (
                tuple(settings.get("categories") or ()),
                int(settings.get("budget", 20)),
                str(settings.get("selection", "prioritized")),
                int(settings.get("seed", 0)),
                grading,
            )
        )
    if len(found) != 1:
        raise ExplaincheckError(
            "--bench: the campaigns ran with different categories, budgets, selections, seeds or"
            " grading; a frozen set has one recipe"
        )
    categories, budget, selection, seed, grading = found.pop()
    return Recipe(tuple(environments), categories, budget, selection, seed, grading)


def _question(row: dict[str, Any]) -> Question:
    from dataclasses import asdict

    grading = row["grading"] or asdict(GradingSettings())
    chance = case_chance(row["schema"], row["expected"], grading, row["category"])
    return Question(
        id=f"{row['environment']}/{row['case_key']}",
        environment=row["environment"],
        model_hash=row["model_hash"],
        category=row["category"],
        selection=row["selection"],
        index=int(row["case_index"]),
        states=tuple(row["states"]),
        wording=int(row.get("wording") or 0),
        prompt=row["prompt"],
        schema=row["schema"],
        expected=row["expected"],
        delta=float(row["delta"]),
        chance=None if chance != chance else float(chance),
        reading=bool(row.get("reading")),
        positive=row.get("positive"),
        gap=row.get("gap"),
        grading=grading,
    )

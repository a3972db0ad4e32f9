"""A/A comparisons on real campaigns: how often ``explaincheck compare`` fires, and how often a
printed category interval excludes 0, when nothing changed but the answer seed.

Two answerers whose correctness cannot change between two runs (``random`` and ``noisy:0.5``)
on four built-in models, the case seed fixed (``--case-seed``: both sides ask the same
questions), each comparison the campaign of answer seed 2i against that of 2i + 1. The cases
are planned as ``run`` plans them (every default category, both selections, budget 20) and the
answerers reply and are graded as in a campaign (``reply_text`` + ``grade_reply``, no runner:
they answer in microseconds); each pair of campaigns then goes through ``compare_campaigns``.
Printed: the number of comparisons, the gate's false-alarm rate (the share that exit 1) and
the share of the printed category intervals (the lines other than ``all`` whose interval is
not "–") that exclude 0, overall and per answerer and model. The goal (issue 51) is ≤ 5 % for
each; exit status 1 above it.

``--bootstrap`` also prints, for contrast, the share the previous interval (a paired BCa
bootstrap of the same pairs at 95 %, unadjusted) excluded 0 on the same comparisons (slow).

    python benchmarks/compare_aa.py [--pairs 25] [--budget 20] [--case-seed 0] [--bootstrap]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable

import pandas as pd

from explaincheck.core.analysis.compare import OVERALL, compare_campaigns
from explaincheck.core.backends.noisy_backend import NoisyBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.campaign.plan import Campaign, Plan, plan_campaign
from explaincheck.core.taxonomy.base import GradingSettings
from explaincheck.core.taxonomy.grading import grade_reply

ANSWERERS = ("random", "noisy:0.5")
MODELS = ("frozen_lake", "water_jug", "transporter", "dam")
GOAL = 0.05


def answerer(spec: str, plan: Plan, seed: int) -> RandomBackend | NoisyBackend:
    if spec == "random":
        return RandomBackend(plan.oracle, plan.environment, seed)
    return NoisyBackend(plan.oracle, float(spec.partition(":")[2]), plan.environment, seed)


def campaign_rows(plan: Plan, spec: str, seed: int) -> pd.DataFrame:
    """The results rows ``run --seed seed`` stores for this plan's cases (the columns
    ``compare`` reads)."""
    replying = answerer(spec, plan, seed)
    settings = GradingSettings()
    rows = []
    for execution in plan.executions:
        case = execution.case
        grade = grade_reply(case, replying.reply_text(case), plan.oracle, settings)
        rows.append(
            {
                "environment": plan.environment_name,
                "model_hash": plan.model_hash,
                "llm": spec,
                "category": case.category,
                "selection": case.selection,
                "case_key": case.key,
                "states": list(case.states),
                "repeat": execution.repeat,
                "verdict": grade.verdict,
            }
        )
    return pd.DataFrame(rows)


def plans(models: Iterable[str], budget: int, case_seed: int) -> dict[str, Plan]:
    """One plan per model; planning it with two answer seeds must give the same cases."""
    found = {}
    for model in models:
        made = [
            plan_campaign(
                Campaign(
                    model,
                    ANSWERERS[:1],
                    budget=budget,
                    selection="both",
                    seed=seed,
                    case_seed=case_seed,
                )
            )
            for seed in (0, 1)
        ]
        keys = [[e.case.key for e in plan.executions] for plan in made]
        if keys[0] != keys[1]:
            raise SystemExit(f"{model}: the answer seed changed the cases")
        found[model] = made[0]
    return found


def bootstrap_excludes(comparison) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(category lines, those whose paired BCa bootstrap 95 % interval excludes 0): the
    interval ``compare`` printed before."""
    from explaincheck.core.analysis.paired import bootstrap_difference

    table = comparison.pairs_table
    lines = excluded = 0
    for _, group in table.groupby("category"):
        new, base = group["new"].to_numpy(float), group["base"].to_numpy(float)
        low, high = bootstrap_difference(new, base)
        if low != low:
            low = high = float(new.mean() - base.mean())
        lines += 1
        excluded += low > 0 or high < 0
    return lines, excluded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=25, help="comparisons per answerer and model")
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--case-seed", type=int, default=0)
    parser.add_argument("--bootstrap", action="store_true", help="also the old interval (slow)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    found = plans(MODELS, args.budget, args.case_seed)
    rows = []
    old = [0, 0]
    for spec in ANSWERERS:
        for model, plan in found.items():
            for i in range(args.pairs):
                base, new = campaign_rows(plan, spec, 2 * i), campaign_rows(plan, spec, 2 * i + 1)
                comparison = compare_campaigns(base, new, spec, spec, detail=False)
                shown = [
                    line
                    for line in comparison.lines
                    if line.category != OVERALL and line.ci[0] == line.ci[0]
                ]
                rows.append(
                    {
                        "answerer": spec,
                        "model": model,
                        "pairs": comparison.pairs,
                        "fired": comparison.regression,
                        "intervals": len(shown),
                        "exclude_0": sum(x.ci[0] > 0 or x.ci[1] < 0 for x in shown),
                        "no_interval": sum(1 for x in comparison.lines if x.category != OVERALL)
                        - len(shown),
                    }
                )
                if args.bootstrap:
                    lines, excluded = bootstrap_excludes(comparison)
                    old[0] += lines
                    old[1] += excluded
    table = pd.DataFrame(rows)
    per = table.groupby(["answerer", "model"], sort=False).agg(
        comparisons=("fired", "size"),
        pairs=("pairs", "first"),
        false_alarms=("fired", "mean"),
        intervals=("intervals", "sum"),
        exclude_0=("exclude_0", "sum"),
        no_interval=("no_interval", "sum"),
    )
    per["share_excluding_0"] = per["exclude_0"] / per["intervals"]
    print(per.to_string(float_format=lambda v: f"{v:.3f}"))
    alarms = float(table["fired"].mean())
    share = float(table["exclude_0"].sum() / table["intervals"].sum())
    print(
        f"\n{len(table)} A/A comparisons (case seed {args.case_seed}, answer seeds 2i vs 2i+1,"
        f" budget {args.budget}, both selections): gate false alarms {alarms:.1%}"
        f" ({int(table['fired'].sum())}); printed category intervals excluding 0"
        f" {share:.1%} ({int(table['exclude_0'].sum())} of {int(table['intervals'].sum())};"
        f" {int(table['no_interval'].sum())} lines print none: too few pairs)"
    )
    if args.bootstrap:
        print(
            f"the previous interval (paired BCa bootstrap, 95 %, unadjusted) excluded 0 on"
            f" {old[1] / old[0]:.1%} of {old[0]} category lines"
        )
    print(f"{time.perf_counter() - started:.0f} s")
    return 0 if alarms <= GOAL and share <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())

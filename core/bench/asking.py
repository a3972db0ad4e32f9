"""Asking the frozen set through the project's own backends into a results file.

Why through a campaign plan: every report, ``compare`` and view reads results files, so a
benchmark run must be one. Each environment's campaign is planned from the set's recipe and its
executions are kept only where the plan's question is the set's (same id, same prompt text and
schema): a later explaincheck whose wording changed refuses the set instead of asking other
questions under its name. The plans run through the one run sequence
(``workspace.campaign.run_plans``), which the command line calls: the bench only plans.
"""

from __future__ import annotations

from dataclasses import replace

from explaincheck.core.bench.questions import BenchSet
from explaincheck.core.campaign.plan import Plan, plan_campaign
from explaincheck.core.errors import ExplaincheckError


def bench_plans(bench: BenchSet, llms: tuple[str, ...], repeat: int = 1) -> list[Plan]:
    """One plan per environment of the set, asking exactly its questions."""
    questions = bench.by_id()
    part_of = bench.manifest.get("held_out_of")  # a split's held-out part: a subset of the plan
    asked: set[str] = set()
    plans = []
    for env in bench.manifest["environments"]:
        campaign = replace(bench.recipe.campaign(env["id"], llms), repeat=repeat)
        plan = plan_campaign(campaign)
        if plan.model_hash != env["model_hash"]:
            raise ExplaincheckError(
                f"environment {env['id']}: its model is not the one the set was made from"
            )
        kept = []
        for execution in plan.executions:
            qid = f"{env['id']}/{execution.case.key}"
            question = questions.get(qid)
            if question is None and part_of:
                continue  # planned, but not in the held-out part
            kept.append(execution)
            asked.add(qid)
            if question is None or (question.prompt, question.schema) != (
                execution.prompt.text,
                execution.prompt.schema,
            ):
                raise ExplaincheckError(
                    f"question {qid}: this explaincheck asks it otherwise than the set"
                    f" (made with explaincheck {bench.manifest.get('explaincheck')})"
                )
        notes = {**plan.notes, "bench": _bench_note(bench)}
        plans.append(replace(plan, executions=tuple(kept), notes=notes))
    missing = sorted(set(questions) - asked)
    if part_of and missing:
        raise ExplaincheckError(f"question {missing[0]}: this explaincheck no longer plans it")
    return plans


def _bench_note(bench: BenchSet) -> dict[str, str]:
    manifest = bench.manifest
    return {"name": manifest["name"], "version": manifest["version"], "sha256": manifest["sha256"]}

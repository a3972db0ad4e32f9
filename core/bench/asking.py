"""Asking the frozen set through the project's own backends into a results file.

Why through a campaign plan: every report, ``compare`` and view reads results files, so a
benchmark run must be one. Each environment's campaign is planned from the set's recipe and its
executions are kept only where the plan's question is the set's (same id, same prompt text and
schema): a later explaincheck whose wording changed refuses the set instead of asking other
questions under its name; a question the plan asks that the set lacks (a trimmed set) is
refused as not in the set. ``limit`` asks the set's first N questions, as Inspect's ``--limit N``
asks the task's first N samples. ``seed`` is the answers' decoding seed (default: the set's
seed, as a campaign of the recipe would use); the cases stay the set's (``case_seed``).
``generate_options`` are the decoding settings both this and the Inspect task send.
The plans run through the one run sequence (``workspace.campaign.run_plans``), which the
command line calls: the bench only plans.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from explaincheck.core.backends.llm import Decoding
from explaincheck.core.bench.questions import BenchSet
from explaincheck.core.campaign.plan import Plan, plan_campaign
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.errors import ExplaincheckError


def generate_options(
    bench: BenchSet, seed: int | None = None, max_tokens: int | None = None
) -> dict[str, Any]:
    """Temperature, seed and output cap of one answer, as ``bench run`` sends them (greedy,
    the set's seed unless ``seed``, the OpenAI-compatible and local cap unless ``max_tokens``)."""
    chosen = bench.recipe.seed if seed is None else seed
    return {**Decoding(chosen).options(0), "max_tokens": max_tokens or BackendSettings().max_tokens}


def bench_plans(
    bench: BenchSet,
    llms: tuple[str, ...],
    repeat: int = 1,
    *,
    seed: int | None = None,
    limit: int | None = None,
) -> list[Plan]:
    """One plan per environment of the set, asking exactly its questions (the first ``limit``
    of them when given), its answers decoded with ``seed`` (None: the set's)."""
    questions = bench.by_id()
    wanted = {q.id for q in bench.questions[:limit]} if limit is not None else set(questions)
    part_of = bench.manifest.get("held_out_of")  # a split's held-out part: a subset of the plan
    asked: set[str] = set()
    plans = []
    for env in bench.manifest["environments"]:
        campaign = replace(bench.recipe.campaign(env["id"], llms), repeat=repeat)
        if seed is not None and seed != campaign.seed:  # the set's cases, the answers' own seed
            campaign = replace(campaign, seed=seed, case_seed=campaign.cases_seed)
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
            if question is None:
                raise ExplaincheckError(
                    f"question {qid}: this explaincheck plans it, but it is not in the set"
                    f" ({bench.manifest.get('questions')} questions; a trimmed or edited set?"
                    " bench run --limit N asks the first N questions of a whole set)"
                )
            asked.add(qid)
            if (question.prompt, question.schema) != (
                execution.prompt.text,
                execution.prompt.schema,
            ):
                raise ExplaincheckError(
                    f"question {qid}: this explaincheck asks it otherwise than the set"
                    f" (made with explaincheck {bench.manifest.get('explaincheck')})"
                )
            if qid in wanted:
                kept.append(execution)
        if not kept:
            continue  # --limit: none of this environment's questions is among the first N
        notes = {**plan.notes, "bench": _bench_note(bench)}
        plans.append(replace(plan, executions=tuple(kept), notes=notes))
    missing = sorted(set(questions) - asked)
    if missing:
        raise ExplaincheckError(f"question {missing[0]}: this explaincheck no longer plans it")
    return plans


def _bench_note(bench: BenchSet) -> dict[str, str]:
    manifest = bench.manifest
    return {"name": manifest["name"], "version": manifest["version"], "sha256": manifest["sha256"]}

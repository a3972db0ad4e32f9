"""The Inspect AI task ``explaincheck/bench`` (optional extra ``inspect``): the frozen set as
Inspect samples, asked with explaincheck's schema and scored by explaincheck's grader.

Why its own schema type: Inspect's ``JSONSchema`` keeps only the fields it declares, so a ranking
schema loses ``minItems``/``maxItems``/``uniqueItems`` on the way to the provider (a peer check
against llama.cpp saw a ranking reply run to 3,476 tokens without them). ``KeptSchema`` keeps
every field of ``AnswerForm.schema``. The scorer calls ``bench.grading.grade_question`` (so a
verdict is the campaign's); the metrics are the pass rate and the chance-corrected score per
category (``grouped`` over the sample's category). Registered through the ``inspect_ai`` entry
point (pyproject.toml), so ``inspect eval explaincheck/bench --model PROVIDER/MODEL`` runs it;
``-T dir=DIR`` asks an exported set, otherwise the default set (built once into the cache).
The task's generate config is ``bench run``'s (``bench.asking.generate_options``): temperature 0,
the set's seed, an output cap of 256 tokens, so both send the same request; Inspect's own
``--seed``, ``--max-tokens`` and ``--temperature`` override it as they override any task's.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, ResponseSchema
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    accuracy,
    grouped,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema
from pydantic import ConfigDict

from explaincheck.core.bench.asking import generate_options
from explaincheck.core.bench.grading import CHANCE_CEILING, Oracles, grade_question
from explaincheck.core.bench.questions import BenchSet, Question, cached_default_set, read_set

CATEGORY = "category"


class KeptSchema(JSONSchema):
    """Inspect's JSON schema with every other field kept (bounds of arrays above all)."""

    model_config = ConfigDict(extra="allow")
    items: Optional[KeptSchema] = None  # noqa: UP045 - pydantic resolves the forward name
    properties: dict[str, KeptSchema] | None = None  # type: ignore[assignment]
    anyOf: list[KeptSchema] | None = None  # type: ignore[assignment]


KeptSchema.model_rebuild()


def sample(question: Question, degenerate: bool = False) -> Sample:
    """The question as an Inspect sample; ``degenerate``: its category measures nothing on its
    model (the manifest's ``degenerate``; ``bench grade`` leaves such questions out of its rows,
    Inspect's metrics count every sample, so the mark travels in the metadata)."""
    return Sample(
        id=question.id,
        input=question.prompt,
        target=json.dumps(question.expected, sort_keys=True),
        metadata={
            CATEGORY: question.category,
            "environment": question.environment,
            "selection": question.selection,
            "delta": question.delta,
            "chance": question.chance,
            "schema": question.schema,
            "degenerate": degenerate,
        },
    )


@solver
def ask_with_schema() -> Solver:
    """Generate with the question's own answer schema (constrained decoding where supported)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        schema = KeptSchema.model_validate(state.metadata["schema"])
        answer = ResponseSchema(name="answer", json_schema=schema)
        return await generate(state, response_schema=answer)

    return solve


@metric
def chance_corrected() -> Metric:
    """Mean of (pass − chance) / (1 − chance) over the samples whose chance is below 1."""

    def compute(scores: list[SampleScore]) -> float:
        values = []
        for found in scores:
            chance = (found.sample_metadata or {}).get("chance")
            if chance is None or chance >= CHANCE_CEILING:
                continue
            passed = found.score.as_float()  # CORRECT is 1.0 by the time metrics run
            values.append((passed - chance) / (1 - chance))
        return sum(values) / len(values) if values else float("nan")

    return compute


@scorer(
    metrics=[
        grouped(accuracy(), CATEGORY),
        grouped(
            chance_corrected(),
            CATEGORY,
            all_label="all_corrected",
            name_template="{group_name}_corrected",
        ),
        stderr(),
    ]
)
def explaincheck_grader(bench: BenchSet) -> Scorer:
    """explaincheck's verdict on the completion: CORRECT for pass; the verdict (pass, fail,
    invalid) and the reason in the score."""
    questions, oracles = bench.by_id(), Oracles(bench)

    async def score(state: TaskState, target: Target) -> Score:
        question = questions[str(state.sample_id)]
        reply = state.output.completion
        grade = grade_question(question, reply, oracles)
        return Score(
            value=CORRECT if grade.verdict == "pass" else INCORRECT,
            answer=json.dumps(grade.answer),
            explanation=grade.reason,
            metadata={"verdict": grade.verdict},
        )

    return score


@task
def bench(dir: str | None = None) -> Task:
    """The explaincheck benchmark: MDP-policy explanation questions graded by an exact oracle."""
    found = read_set(dir) if dir else cached_default_set()
    manifest = found.manifest
    nothing = {e["id"]: set(e.get("degenerate") or ()) for e in manifest["environments"]}
    samples = [sample(q, q.category in nothing.get(q.environment, ())) for q in found.questions]
    return Task(
        dataset=MemoryDataset(samples, name=manifest["name"]),
        solver=ask_with_schema(),
        scorer=explaincheck_grader(found),
        config=GenerateConfig(**generate_options(found)),
        metadata={"bench": _note(manifest), "bench_dir": dir},
        version=int(manifest["version"]) if str(manifest["version"]).isdigit() else 0,
    )


def _note(manifest: dict[str, Any]) -> dict[str, Any]:
    return {key: manifest[key] for key in ("name", "version", "sha256", "questions")}

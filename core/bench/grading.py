"""Grading answers to the frozen set with the campaign's own parser and grader.

Why no grader of its own: a benchmark whose verdicts differ from a campaign's measures something
else. Each answered question is turned back into its ``TestCase`` and graded by
``taxonomy.grading.grade_reply`` against the oracle of its environment, recomputed (usually
loaded from the oracle cache) and checked against the model hash the set was made from. The
summary per category is Table 1's row for the answers, beside the random baseline (the
``random`` answerer's replies to the same questions, graded the same way) and the oracle's
ceiling; the chance-corrected score is (pass − chance) / (1 − chance) per question, averaged
(``analysis.prioritization.corrected_case_scores`` applies the same formula to stored cases).
Questions of a category that measures nothing on its environment's model (every candidate δ = 0
or a reading case: ``taxonomy.degeneracy``, as a campaign's plan finds it) are graded and
counted but left out of the rows and of "all" unless ``include_degenerate``: there a constant
answer scores near perfect without any reasoning (docs/method.md §4, deviation 11).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.bench.questions import BenchSet, Question
from explaincheck.core.campaign.plan import load_environment, oracle_for
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.json_input import Fields, read_json_lines
from explaincheck.core.taxonomy.base import FAIL, INVALID, PASS, Grade, GradingSettings
from explaincheck.core.taxonomy.degeneracy import degenerate_categories
from explaincheck.core.taxonomy.grading import grade_reply

if TYPE_CHECKING:
    from explaincheck.core.oracle.types import OracleResult

CHANCE_CEILING = 1 - 1e-12  # a question every answer passes cannot be chance-corrected
ANSWERS, RANDOM_ROW, ORACLE_ROW = "answers", "random", "oracle"


class Oracles:
    """The oracle of each environment of a set, computed once and checked against its hash."""

    def __init__(self, bench: BenchSet):
        self.bench = bench
        self._found: dict[str, OracleResult] = {}
        self._degenerate: dict[str, dict[str, str]] = {}

    def degenerate(self, env_id: str) -> dict[str, str]:
        """Category -> why it measures nothing on this environment's model, as the plan that
        made the set found it (recomputed for sets exported before the manifest said so)."""
        if env_id not in self._degenerate:
            stored = self.bench.environment(env_id).get("degenerate")
            if stored is None:
                campaign = self.bench.recipe.campaign(env_id)
                stored = degenerate_categories(
                    self(env_id), self.bench.recipe.categories, campaign.rules, campaign.seed
                )
            self._degenerate[env_id] = dict(stored)
        return self._degenerate[env_id]

    def __call__(self, env_id: str) -> OracleResult:
        if env_id not in self._found:
            campaign = self.bench.recipe.campaign(env_id)
            oracle = oracle_for(campaign, load_environment(campaign))
            expected = self.bench.environment(env_id)["model_hash"]
            if oracle.model.content_hash != expected:
                raise ExplaincheckError(
                    f"environment {env_id}: its model is not the one the set was made from"
                    f" (hash {oracle.model.content_hash[:12]}, set {expected[:12]})"
                )
            self._found[env_id] = oracle
        return self._found[env_id]


def grade_question(question: Question, reply: str, oracles: Oracles) -> Grade:
    """The campaign's verdict on ``reply`` as an answer to ``question``."""
    settings = GradingSettings(**question.grading)
    return grade_reply(question.case(), reply, oracles(question.environment), settings)


def random_reply(question: Question, oracles: Oracles) -> str:
    """What the ``random`` answerer replies to ``question`` (the same draw as in a campaign)."""
    return RandomBackend(oracles(question.environment)).reply_text(question.case())


def oracle_reply(question: Question, oracles: Oracles) -> str:
    """What the ``oracle`` answerer replies to ``question``."""
    return OracleBackend(oracles(question.environment)).reply_text(question.case())


def read_answers(path: str | Path, bench: BenchSet) -> dict[str, str]:
    """``{"id", "reply"}`` per line (``json_input``); refused in one line on a bad line or
    field, an unknown id, an id answered twice, or a file without any answer."""
    known = bench.by_id()
    answers: dict[str, str] = {}
    for number, value in read_json_lines(path, what="answers file"):
        where = f"{path}:{number}"
        fields = Fields(value, where, 'an answer {"id": ..., "reply": ...}')
        qid, reply = fields.text("id"), fields.value("reply")
        if qid not in known:
            raise ExplaincheckError(f"{where}: unknown question id {qid[:80]!r}")
        if qid in answers:
            raise ExplaincheckError(f"{where}: question {qid[:80]!r} answered twice")
        answers[qid] = reply if isinstance(reply, str) else json.dumps(reply)
    if not answers:
        raise ExplaincheckError(
            f'{path}: no answer in it (want one {{"id": ..., "reply": ...}} per line)'
        )
    return answers


@dataclass(frozen=True)
class Verdict:
    id: str
    category: str
    verdict: str
    reason: str
    chance: float | None
    degenerate: bool = False  # its category measures nothing on its environment's model


def grade_answers(
    bench: BenchSet, answers: Mapping[str, str], oracles: Oracles | None = None
) -> list[Verdict]:
    """Each answered question's verdict, in the set's order."""
    oracles = oracles or Oracles(bench)
    found = []
    for question in bench.questions:
        if question.id in answers:
            grade = grade_question(question, answers[question.id], oracles)
            degenerate = question.category in oracles.degenerate(question.environment)
            found.append(
                Verdict(
                    question.id,
                    question.category,
                    grade.verdict,
                    grade.reason,
                    question.chance,
                    degenerate,
                )
            )
    return found


def category_rows(
    verdicts: Iterable[Verdict], order: Iterable[str], include_degenerate: bool = False
) -> list[dict[str, Any]]:
    """Per category (in ``order``, then "all"): counts, pass rate, mean chance and the mean
    chance-corrected score, over the questions whose category measures something on their
    model (all of them with ``include_degenerate``); ``degenerate`` counts those left out."""
    by_category: dict[str, list[Verdict]] = {}
    left_out: dict[str, int] = {}
    for verdict in verdicts:
        by_category.setdefault(verdict.category, [])
        left_out.setdefault(verdict.category, 0)
        if verdict.degenerate and not include_degenerate:
            left_out[verdict.category] += 1
        else:
            by_category[verdict.category].append(verdict)
    every = [v for c in by_category.values() for v in c]
    rows = [
        {**summary(c, by_category[c]), "degenerate": left_out[c]} for c in order if c in by_category
    ]
    if by_category:
        rows.append({**summary("all", every), "degenerate": sum(left_out.values())})
    return rows


def summary(name: str, verdicts: list[Verdict]) -> dict[str, Any]:
    passes = [v.verdict == PASS for v in verdicts]
    chances = [v.chance for v in verdicts if v.chance is not None]
    corrected = [
        (float(v.verdict == PASS) - v.chance) / (1 - v.chance)
        for v in verdicts
        if v.chance is not None and v.chance < CHANCE_CEILING
    ]
    return {
        "category": name,
        "answered": len(verdicts),
        "pass": sum(passes),
        "fail": sum(v.verdict == FAIL for v in verdicts),
        "invalid": sum(v.verdict == INVALID for v in verdicts),
        "pass_rate": _mean([float(p) for p in passes]),
        "chance": _mean(chances),
        "corrected": _mean(corrected),
    }


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def bench_table(
    bench: BenchSet, answers: Mapping[str, str], include_degenerate: bool = False
) -> dict[str, Any]:
    """What ``bench grade`` reports: the answers' rows per category beside the random
    baseline's and the oracle's pass rates on the same questions (``category_rows``: the
    questions of degenerate cells left out unless ``include_degenerate``), and every verdict."""
    oracles = Oracles(bench)
    verdicts = grade_answers(bench, answers, oracles)
    answered = {v.id for v in verdicts}
    asked = [q for q in bench.questions if q.id in answered]
    baselines = {
        RANDOM_ROW: {q.id: random_reply(q, oracles) for q in asked},
        ORACLE_ROW: {q.id: oracle_reply(q, oracles) for q in asked},
    }
    order = list(dict.fromkeys(q.category for q in bench.questions))
    rows = category_rows(verdicts, order, include_degenerate)
    for name, replies in baselines.items():
        graded = grade_answers(bench, replies, oracles)
        theirs = {r["category"]: r for r in category_rows(graded, order, include_degenerate)}
        for row in rows:
            row[f"{name}_pass_rate"] = theirs[row["category"]]["pass_rate"]
    return {
        "name": bench.manifest["name"],
        "version": bench.manifest["version"],
        "sha256": bench.manifest["sha256"],
        "questions": len(bench.questions),
        "answered": len(verdicts),
        "categories": rows,
        "verdicts": {v.id: v.verdict for v in verdicts},
        "degenerate": {
            env: sorted(oracles.degenerate(env))
            for env in dict.fromkeys(q.environment for q in asked)
            if oracles.degenerate(env)
        },
        "degenerate_included": include_degenerate,
    }

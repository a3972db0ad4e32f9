"""Running the reference explainers whose faults are known (issue 13), for ``explaincheck faults``.

Why here and not in analysis: this half answers every applicable category's budgeted selections
and whole candidate pool with each ``flaw:`` explainer and ``noisy:Q`` directly (no LLM runner,
no database: these answerers take microseconds), which is running a campaign; analysis only reads
what it returns (``analysis/fault_detection.py``: detection matrix, RQ1 with ground truth, APFD
tables, calibration).

APFD (average percentage of faults detected, Rothermel et al.): for an order of n cases in which
the m failing cases sit at positions TF_1..TF_m (1-based), APFD = 1 − ΣTF_i/(n·m) + 1/(2n). Each
failing case counts as one fault. 1 means the failures come first, a random order gives 0.5 on
average, below 0.5 they come late. NaN where nothing fails. It is measured here, over the whole
pool, because a database never holds the pool.

``detect_faults`` returns a results-like frame (the columns of ``store.results_frame`` that the
analysis reads) for the budgeted selections, plus the pool orderings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cached_property
from typing import Protocol

import numpy as np
import pandas as pd

from explaincheck.core.backends.flaw_backend import FlawedBackend, picture_answer
from explaincheck.core.backends.noisy_backend import NoisyBackend
from explaincheck.core.backends.registry import REFERENCE_FLAWS
from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.flawed import Flaw, flawed_oracle, parse_flaw
from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import (
    PASS,
    PRIORITIZED,
    RANDOM,
    Grade,
    GradingSettings,
    TestCase,
)
from explaincheck.core.taxonomy.case_rules import DEFAULT_RULES, SelectionRules
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES, applicability
from explaincheck.core.taxonomy.selection import select_cases


class DirectAnswerer(Protocol):
    """An answerer that replies at once, without a runner (flawed, noisy, random, hedge)."""

    def reply_text(self, case: TestCase) -> str: ...


EXPLAINERS: tuple[str, ...] = REFERENCE_FLAWS  # the flaw kind's presets (backend registry)
CALIBRATION_SHARES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
FLAW_PREFIX, NOISY_PREFIX = "flaw:", "noisy:"


@dataclass
class FaultDetection:
    """``results``: one row per selected case and explainer (results-frame columns);
    ``pools``: one row per explainer × environment × category with the pool's APFD."""

    results: pd.DataFrame
    pools: pd.DataFrame
    budget: int
    seed: int


class _ParsedOnce(OracleResult):
    """The same oracle with its exact V and D parsed once: a pair category's pool asks
    ``compare`` millions of times, and parsing "num/den" text each time dominated the run."""

    @cached_property
    def _exact(self) -> dict[str, list[Fraction | None]]:
        parsed: dict[str, list[Fraction | None]] = {}
        for quantity in ("value", "danger"):
            texts = [getattr(s, f"{quantity}_exact") for s in self.states]
            parsed[quantity] = [None if t is None else Fraction(t) for t in texts]
        return parsed

    def compare(self, first: StateFacts, second: StateFacts, quantity: str = "value") -> int:
        a, b = self._exact[quantity][first.id], self._exact[quantity][second.id]
        if a is not None and b is not None:
            return (a > b) - (a < b)
        return super().compare(first, second, quantity)


def parsed_once(oracle: OracleResult) -> OracleResult:
    """``oracle`` with exact comparisons that do not re-parse fractions (same answers)."""
    return _ParsedOnce(**{f.name: getattr(oracle, f.name) for f in fields(oracle)})


def apfd(failing: Sequence[bool]) -> float:
    """APFD of one order (``failing[i]``: the (i+1)-th case fails); NaN without failures."""
    n = len(failing)
    positions = [i + 1 for i, fails in enumerate(failing) if fails]
    if not n or not positions:
        return math.nan
    return 1.0 - sum(positions) / (n * len(positions)) + 1.0 / (2 * n)


def apfd_by_delta(deltas: Sequence[float], failing: Sequence[bool]) -> float:
    """APFD of the δ order (highest δ first) averaged over every order of its ties, exactly:
    the f failing cases of a tie group at positions start+1..start+g sit at start + (g+1)/2 on
    average. NaN without failures."""
    n, m = len(deltas), int(sum(bool(f) for f in failing))
    if not n or not m:
        return math.nan
    groups: dict[float, list[int]] = {}
    for delta, fails in zip(deltas, failing, strict=True):
        groups.setdefault(round(float(delta), 12), []).append(int(bool(fails)))
    start, positions = 0, Fraction(0)
    for delta in sorted(groups, reverse=True):
        members = groups[delta]
        positions += sum(members) * (start + Fraction(len(members) + 1, 2))
        start += len(members)
    return float(1 - positions / (n * m) + Fraction(1, 2 * n))


def apfd_random_expectation(n: int, m: int) -> float:
    """The exact expected APFD of a uniformly random order of n cases with m failing: each
    failing position averages (n+1)/2, so 1 − (n+1)/(2n) + 1/(2n) = ½ whatever n and m (NaN
    without failures)."""
    if not n or not m:
        return math.nan
    return float(1 - Fraction(n + 1, 2 * n) + Fraction(1, 2 * n))


def pool_rows(
    spec: str, environment: str, category: str, cases: Sequence[TestCase], failing: Sequence[bool]
) -> list[dict]:
    """The pool rows of one explainer × environment × category: one row for the whole pool, or
    for a yes/no category one per class (``positive``), as balanced selection draws from each."""
    if cases and all(c.positive is not None for c in cases):
        classes = [("yes", True), ("no", False)]
        parts = [
            (name, [i for i, c in enumerate(cases) if c.positive is value])
            for name, value in classes
        ]
    else:
        parts = [("all", list(range(len(cases))))]
    rows = []
    for name, members in parts:
        deltas = np.array([cases[i].delta for i in members], dtype=float)
        fails = np.array([failing[i] for i in members], dtype=bool)
        rows.append(
            {
                "llm": spec,
                "environment": environment,
                "category": category,
                "class": name,
                "pool": len(members),
                "failing": int(fails.sum()),
                "apfd_prioritized": apfd_by_delta(deltas.tolist(), fails.tolist()),
                "apfd_random": apfd_random_expectation(len(members), int(fails.sum())),
                "delta_failing": float(deltas[fails].mean()) if fails.any() else math.nan,
                "delta_passing": float(deltas[~fails].mean()) if (~fails).any() else math.nan,
            }
        )
    return rows


def detect_faults(
    environments: Iterable[str],
    explainers: Sequence[str] = EXPLAINERS,
    *,
    budget: int = 20,
    seed: int = 0,
    shares: Sequence[float] = CALIBRATION_SHARES,
    progress: Callable[[str], None] | None = None,
) -> FaultDetection:
    """Answer every applicable category of every environment with each flawed explainer (the
    budgeted selections through prompt rendering, reply parsing and grading; the whole candidate
    pool for APFD) and with ``noisy:Q`` for each Q in ``shares`` (budgeted selections only)."""
    flaws = {spec: parse_flaw(spec.removeprefix(FLAW_PREFIX)) for spec in explainers}
    rows: list[dict] = []
    pools: list[dict] = []
    for env_id in environments:
        if progress:
            progress(env_id)
        env_rows, env_pools = _environment(env_id, flaws, budget, seed, shares)
        rows += env_rows
        pools += env_pools
    return FaultDetection(pd.DataFrame(rows), pd.DataFrame(pools), budget, seed)


def _environment(
    env_id: str, flaws: dict[str, Flaw], budget: int, seed: int, shares: Sequence[float]
) -> tuple[list[dict], list[dict]]:
    campaign = Campaign(environment=env_id, llms=("oracle",), budget=budget, seed=seed)
    environment = load_environment(campaign)
    truth = oracle_for(campaign, environment)
    name = environment.id or env_id
    pictures = {spec: flawed_oracle(truth, flaw) for spec, flaw in flaws.items()}  # memoised
    answerers: dict[str, FlawedBackend | NoisyBackend] = {
        spec: FlawedBackend(truth, flaw) for spec, flaw in flaws.items()
    }
    for share in shares:
        noisy = NoisyBackend(truth, share, environment, seed)
        answerers[noisy.spec] = noisy
    settings = GradingSettings()
    rows = selected_rows(name, truth, environment, answerers, budget, seed)
    pools = []
    applicable = applicability(truth)
    for category_id, category in CATEGORIES.items():
        if not applicable[category_id].applicable:
            continue
        candidates = category.candidates(truth, seed)
        cases = [
            TestCase(category_id, c.states, c.delta, PRIORITIZED, i, c.positive)
            for i, c in enumerate(candidates)
        ]
        quick_truth = parsed_once(truth)
        for spec, picture in pictures.items():
            quick = parsed_once(picture)
            failing = [
                category.judge(picture_answer(c, quick), c, quick_truth, settings).verdict != PASS
                for c in cases
            ]
            pools += pool_rows(spec, name, category_id, cases, failing)
    return rows, pools


def selected_rows(
    name: str,
    truth: OracleResult,
    environment: Environment,
    answerers: Mapping[str, DirectAnswerer],
    budget: int,
    seed: int,
    rules: SelectionRules = DEFAULT_RULES,
) -> list[dict]:
    """Results-frame rows of every applicable category's budgeted selections (both) under
    ``rules``, each case answered by every answerer directly (``reply_text``: no runner, no
    database)."""
    settings = GradingSettings()
    applicable = applicability(truth)
    rows = []
    for category_id in CATEGORIES:
        if not applicable[category_id].applicable:
            continue
        for selection in (PRIORITIZED, RANDOM):
            for case in select_cases(truth, category_id, budget, selection, seed, rules):
                prompt = render_prompt(case, truth, environment)
                for spec, answerer in answerers.items():
                    grade = grade_reply(case, answerer.reply_text(case), truth, settings)
                    rows.append(_row(name, spec, case, prompt.schema, grade))
    return rows


def _row(environment: str, llm: str, case: TestCase, schema: dict, grade: Grade) -> dict:
    return {
        "environment": environment,
        "llm": llm,
        "category": case.category,
        "selection": case.selection,
        "case_key": case.key,
        "states": list(case.states),
        "repeat": 0,
        "delta": float(case.delta),
        "positive": case.positive,
        "verdict": grade.verdict,
        "schema": schema,
        "expected": grade.expected,
        "grading": None,
    }

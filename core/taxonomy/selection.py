"""Budgeted selection of test cases: prioritised by δ or uniformly at random (paper section 5).

- ``prioritized``: the ``budget`` highest-δ candidates; ties broken by a seeded random key.
- ``random``: ``budget`` candidates drawn uniformly (seeded) from the same candidate set.
- Binary categories (bottleneck, subset_bottleneck, subset_dead_end) take
  k = min(budget // 2, #positives, #negatives) from each class (the top-δ ones within the class,
  or a uniform draw within the class), so both selections have the same class balance and differ
  only in δ-ranking; cases alternate positive, negative, ... No duplicates fill a budget.
- Same oracle, category, budget and seed → the same cases in the same order on every machine
  (string-seeded ``random.Random``, never ``hash()``).
"""

from __future__ import annotations

import random

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import PRIORITIZED, RANDOM, Candidate, TestCase
from explaincheck.core.taxonomy.registry import category as category_by_id
from explaincheck.core.taxonomy.sampling import rng_for

SELECTIONS = (PRIORITIZED, RANDOM)


def select_cases(
    oracle: OracleResult,
    category_id: str,
    budget: int = 20,
    selection: str = PRIORITIZED,
    seed: int = 0,
) -> list[TestCase]:
    """The test cases of one category; empty when the category is not applicable."""
    if selection not in SELECTIONS:
        raise ExplaincheckError(f"unknown selection {selection!r} (valid: prioritized, random)")
    category = category_by_id(category_id)
    if budget <= 0 or category.not_applicable(oracle) is not None:
        return []
    candidates = category.candidates(oracle, seed)
    rng = rng_for(category_id, selection, seed)
    if category.binary:
        positives = [c for c in candidates if c.positive]
        negatives = [c for c in candidates if not c.positive]
        k = min(budget // 2, len(positives), len(negatives))
        chosen = _interleave(
            _pick(positives, k, selection, rng), _pick(negatives, k, selection, rng)
        )
    else:
        chosen = _pick(candidates, budget, selection, rng)
    return [
        TestCase(c.category, c.states, c.delta, selection, index, c.positive)
        for index, c in enumerate(chosen)
    ]


def _pick(
    candidates: list[Candidate], count: int, selection: str, rng: random.Random
) -> list[Candidate]:
    count = min(count, len(candidates))
    if selection == RANDOM:
        return rng.sample(candidates, count)
    tiebreak = [rng.random() for _ in candidates]
    order = sorted(range(len(candidates)), key=lambda i: (-candidates[i].delta, tiebreak[i]))
    return [candidates[i] for i in order[:count]]


def _interleave(first: list[Candidate], second: list[Candidate]) -> list[Candidate]:
    return [c for pair in zip(first, second, strict=True) for c in pair]

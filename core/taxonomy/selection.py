"""Budgeted selection of test cases: prioritised by δ or uniformly at random (paper section 5).

- ``prioritized``: the ``budget`` highest-δ candidates; ties broken by a seeded random key.
- ``random``: ``budget`` candidates drawn uniformly (seeded) from the same candidate set.
- Binary categories (bottleneck, subset_bottleneck, subset_dead_end) take
  k = min(budget // 2, #positives, #negatives) from each class (the top-δ ones within the class,
  or a uniform draw within the class), so both selections have the same class balance and differ
  only in δ-ranking; cases alternate positive, negative, ... No duplicates fill a budget.
  With ``SelectionRules.balance`` off they are drawn from all candidates like any category.
- ``SelectionRules`` (``case_rules``): do-nothing actions kept or not (preference categories),
  and ``min_gap``, which leaves out the candidates whose deciding difference is below it.
- Same oracle, category, budget and seed → the same cases in the same order on every machine
  (string-seeded ``random.Random``, never ``hash()``).
"""

from __future__ import annotations

import random

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import PRIORITIZED, RANDOM, Candidate, TestCase
from explaincheck.core.taxonomy.case_rules import DEFAULT_RULES, SelectionRules
from explaincheck.core.taxonomy.kinds import PreferenceCategory
from explaincheck.core.taxonomy.registry import category as category_by_id
from explaincheck.core.taxonomy.sampling import rng_for

SELECTIONS = (PRIORITIZED, RANDOM)


def select_cases(
    oracle: OracleResult,
    category_id: str,
    budget: int = 20,
    selection: str = PRIORITIZED,
    seed: int = 0,
    rules: SelectionRules = DEFAULT_RULES,
    candidates: list[Candidate] | None = None,
) -> list[TestCase]:
    """The test cases of one category; empty when the category is not applicable.
    ``candidates``: those of ``ruled_candidates`` with the same arguments, when at hand."""
    if selection not in SELECTIONS:
        raise ExplaincheckError(f"unknown selection {selection!r} (valid: prioritized, random)")
    category = category_by_id(category_id)
    if budget <= 0 or category.not_applicable(oracle) is not None:
        return []
    if candidates is None:
        candidates = ruled_candidates(oracle, category_id, seed, rules)
    rng = rng_for(category_id, selection, seed)
    if category.binary and rules.balance:
        positives = [c for c in candidates if c.positive]
        negatives = [c for c in candidates if not c.positive]
        k = min(budget // 2, len(positives), len(negatives))
        chosen = _interleave(
            _pick(positives, k, selection, rng), _pick(negatives, k, selection, rng)
        )
    else:
        chosen = _pick(candidates, budget, selection, rng)
    keep = rules.keep_do_nothing and isinstance(category, PreferenceCategory)
    return [
        TestCase(
            c.category,
            c.states,
            c.delta,
            selection,
            index,
            c.positive,
            reading=c.reading,
            gap=c.gap,
            keep_do_nothing=keep,
        )
        for index, c in enumerate(chosen)
    ]


def ruled_candidates(
    oracle: OracleResult, category_id: str, seed: int = 0, rules: SelectionRules = DEFAULT_RULES
) -> list[Candidate]:
    """The candidates of one category under ``rules``: do-nothing actions kept where asked,
    cases whose deciding difference is below ``min_gap`` left out."""
    category = category_by_id(category_id)
    if isinstance(category, PreferenceCategory):
        found = category.candidates(oracle, seed, keep_do_nothing=rules.keep_do_nothing)
    else:
        found = category.candidates(oracle, seed)
    found = category.ruled(found, oracle, rules)
    if rules.min_gap > 0:
        found = [c for c in found if c.gap is None or c.gap >= rules.min_gap]
    return found


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

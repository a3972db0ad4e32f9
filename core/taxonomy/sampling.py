"""Which states, pairs and subsets are candidates, and how they are sampled when there are too many.

Pools (docs/method.md §2): state and preference queries use every reachable non-goal state
(preference queries only those with at least two labelled actions). The bottleneck family also
leaves out the initial state: it is a bottleneck by no definition, yet every run passes through
it, so asking about it would be a trick question.

Pairs (mode queries): each unordered pair once, in a seeded random presentation order; pairs whose
compared quantity is tied are left out by the caller. Up to ``PAIR_LIMIT`` pairs all are listed.
Beyond that the candidates are (1) the ``PAIR_TOP`` highest-δ pairs, found exactly from the
structure of δ (closest values: adjacent groups of the value-sorted states; highest-scored partners
for cross pairs), plus (2) ``PAIR_SAMPLE`` uniform seeded pairs, so random selection still draws
(almost) uniformly from all pairs.

Subsets (scope queries) of size k: up to ``SUBSET_LIMIT`` subsets of the pool all are listed.
Beyond that they are sampled per class, where a state's score is its contribution to δ (C_B for
bottlenecks, 1 - V for dead ends) and "marked" states make a subset positive:
- positives: each of the ``SUBSET_SEEDS`` top-scored pool states and up to ``SUBSET_SEEDS`` marked
  states seed ``SUBSETS_PER_SEED`` subsets (plus one random marked state when the seed is not
  marked, the rest uniform from the pool), and ``SUBSET_SAMPLE`` more subsets are one uniform
  marked state plus uniform pool states;
- negatives: each of the ``SUBSET_SEEDS`` top-scored unmarked states seeds ``SUBSETS_PER_SEED``
  subsets completed uniformly from the unmarked states, plus ``SUBSET_SAMPLE`` uniform subsets of
  the unmarked states.
Since δ of a subset is the best score of its members, every subset seeded by the top state reaches
the highest δ possible in its class, so prioritised selection of up to ``SUBSETS_PER_SEED`` cases
per class gets the exact top δ values.

All randomness comes from ``rng_for`` (string seeds: the same on every machine and Python run).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import cast

from explaincheck.core.oracle.types import OracleResult, StateFacts

PAIR_LIMIT = 200_000
PAIR_TOP = 5_000
PAIR_SAMPLE = 50_000
SUBSET_LIMIT = 200_000
SUBSET_SEEDS = 100
SUBSETS_PER_SEED = 20
SUBSET_SAMPLE = 2_000
DEFAULT_SUBSET_SIZE = 4

Pair = tuple[int, int]
Subset = tuple[int, ...]
Key = Fraction | float
Tied = Callable[[Key, Key], bool]


def rng_for(category: str, purpose: str, seed: int) -> random.Random:
    """A generator seeded by a string, so draws do not depend on hash randomisation."""
    return random.Random(f"explaincheck/{category}/{purpose}/{seed}")


def delta(value: float) -> float:
    """δ rounded to 12 decimals, so tied δ compare equal on every machine (0.7, not 0.70…01)."""
    return round(value, 12) + 0.0


def non_goal(oracle: OracleResult) -> list[StateFacts]:
    return [s for s in oracle.states if not s.is_goal]


def preference_pool(oracle: OracleResult) -> list[StateFacts]:
    return [s for s in oracle.states if not s.is_goal and len(s.q) >= 2]


def bottleneck_pool(oracle: OracleResult) -> list[StateFacts]:
    return [s for s in oracle.states if not s.is_goal and not s.is_initial]


def quantity_key(oracle: OracleResult, quantity: str) -> Callable[[StateFacts], Key]:
    """Per-state sort key for V ("value") or D ("danger"): exact fractions when the oracle has
    them, else floats (compared with the oracle's tie tolerance, as ``OracleResult.compare``)."""

    def key(state: StateFacts) -> Key:
        exact = getattr(state, f"{quantity}_exact")
        return Fraction(exact) if exact is not None else getattr(state, quantity)

    return key


def keys_tied(oracle: OracleResult) -> Tied:
    def tied(a: Key, b: Key) -> bool:
        if isinstance(a, Fraction) and isinstance(b, Fraction):
            return a == b
        return abs(float(a) - float(b)) <= oracle.tie_tolerance

    return tied


def _present(pair: Pair, rng: random.Random) -> Pair:
    return (pair[1], pair[0]) if rng.random() < 0.5 else pair


def untied_pairs(
    ids: Sequence[int],
    key: dict[int, Key],
    tied: Tied,
    rng: random.Random,
) -> list[Pair]:
    """Unordered pairs of states whose keys are not tied, each once, in presentation order."""
    ids = sorted(ids)
    if len(ids) * (len(ids) - 1) // 2 <= PAIR_LIMIT:
        return [_present((a, b), rng) for a, b in combinations(ids, 2) if not tied(key[a], key[b])]
    chosen: dict[Pair, None] = {}
    for pair in _closest_pairs(ids, key, tied, rng):
        chosen.setdefault(pair, None)
    _add_uniform(chosen, lambda: cast(Pair, tuple(sorted(rng.sample(ids, 2)))), key, tied)
    return [_present(pair, rng) for pair in chosen]


def _closest_pairs(
    ids: Sequence[int], key: dict[int, Key], tied: Tied, rng: random.Random
) -> list[Pair]:
    """The ``PAIR_TOP`` untied pairs with the smallest key gap: groups of tied states in value
    order, group pairs taken by increasing gap (a heap over (g, g + j), like merging sorted lists);
    a group pair larger than the remaining room is sampled."""
    order = sorted(ids, key=lambda i: key[i])
    groups: list[list[int]] = [[order[0]]]
    for state in order[1:]:
        if tied(key[groups[-1][-1]], key[state]):
            groups[-1].append(state)
        else:
            groups.append([state])
    value = [float(key[g[0]]) for g in groups]
    heap = [(value[g + 1] - value[g], g, g + 1) for g in range(len(groups) - 1)]
    heapq.heapify(heap)
    top: list[Pair] = []
    while heap and len(top) < PAIR_TOP:
        _, g, h = heapq.heappop(heap)
        block = [(min(a, b), max(a, b)) for a in groups[g] for b in groups[h]]
        room = PAIR_TOP - len(top)
        top.extend(sorted(rng.sample(block, room)) if len(block) > room else block)
        if h + 1 < len(groups):
            heapq.heappush(heap, (value[h + 1] - value[g], g, h + 1))
    return top


def _add_uniform(
    chosen: dict[Pair, None],
    draw: Callable[[], Pair],
    key: dict[int, Key] | None,
    tied: Tied | None,
) -> None:
    """Add up to ``PAIR_SAMPLE`` new uniform pairs (tied ones skipped when ``key`` is given)."""
    target = len(chosen) + PAIR_SAMPLE
    for _ in range(3 * PAIR_SAMPLE):
        if len(chosen) >= target:
            return
        a, b = draw()
        if key is None or tied is None or not tied(key[a], key[b]):
            chosen.setdefault((a, b), None)


def cross_pairs(
    left: Sequence[int], right: Sequence[int], score: dict[int, float], rng: random.Random
) -> list[Pair]:
    """Pairs of one ``left`` and one ``right`` state, in presentation order; when sampled, the
    top part pairs the highest-``score`` right states (ties seeded) with every left state."""
    left, right = sorted(left), sorted(right)
    if len(left) * len(right) <= PAIR_LIMIT:
        return [_present((a, b), rng) for a in left for b in right]
    tiebreak = {r: rng.random() for r in right}
    ranked = sorted(right, key=lambda r: (-score[r], tiebreak[r]))
    chosen: dict[Pair, None] = {}
    for r in ranked:
        if len(chosen) >= PAIR_TOP:
            break
        for a in left:
            chosen.setdefault((a, r), None)
    _add_uniform(chosen, lambda: (rng.choice(left), rng.choice(right)), None, None)
    return [_present(pair, rng) for pair in chosen]


def subsets(
    pool: Sequence[int],
    marked: set[int],
    score: dict[int, float],
    k: int,
    rng: random.Random,
) -> list[Subset]:
    """k-subsets of ``pool`` (members in seeded presentation order); see the module docstring."""
    pool = sorted(pool)
    if len(pool) < k:
        return []
    if comb(len(pool), k) <= SUBSET_LIMIT:
        found = [list(c) for c in combinations(pool, k)]
    else:
        found = [sorted(s) for s in _sampled_subsets(pool, marked, score, k, rng)]
    for members in found:
        rng.shuffle(members)
    return [tuple(members) for members in found]


def _sampled_subsets(
    pool: list[int], marked: set[int], score: dict[int, float], k: int, rng: random.Random
) -> dict[frozenset[int], None]:
    unmarked = [s for s in pool if s not in marked]
    marks = [s for s in pool if s in marked]
    tiebreak = {s: rng.random() for s in pool}
    ranked = sorted(pool, key=lambda s: (-score[s], tiebreak[s]))
    chosen: dict[frozenset[int], None] = {}

    def complete(start: set[int], fill: Sequence[int]) -> None:
        members = set(start)
        while len(members) < k:
            members.add(rng.choice(fill))
        chosen.setdefault(frozenset(members), None)

    if marks:
        seeds = ranked[:SUBSET_SEEDS] + _some(marks, SUBSET_SEEDS, rng)
        for s in seeds:
            for _ in range(SUBSETS_PER_SEED):
                start = {s} if s in marked else {s, rng.choice(marks)}
                complete(start, pool)
        for _ in range(SUBSET_SAMPLE):
            complete({rng.choice(marks)}, pool)
    if len(unmarked) >= k:
        for s in [s for s in ranked if s not in marked][:SUBSET_SEEDS]:
            for _ in range(SUBSETS_PER_SEED):
                complete({s}, unmarked)
        for _ in range(SUBSET_SAMPLE):
            complete(set(rng.sample(unmarked, k)), unmarked)
    return chosen


def _some(items: list[int], n: int, rng: random.Random) -> list[int]:
    return list(items) if len(items) <= n else rng.sample(items, n)

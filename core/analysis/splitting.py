"""Making a split of a results file's cases (``explaincheck split``): train and held-out.

Why by state neighbourhood: a held-out question is only held out if no training record states a
value its answer is made of (``campaign.neighbourhood``). A random partition of cases leaks: on
a 16-state lake two questions about one state, or about a state and its neighbour, land on both
sides. The rule (``split_file.RULE_TEXT``) is kept by construction and checked before the file
is written (``split_file.check_rule``).

How, per model (environment and model hash), deterministically from the seed:

1. every distinct question (a case key, or both selections' keys of one question) gets its
   neighbourhood: its states and their non-absorbing successors;
2. a held-out *region* of states grows from a seeded start state in breadth-first order over
   the model's graph (edges both ways, neighbours in a seeded order; a new seeded start when a
   part of the graph is used up); the questions whose states all lie in the region are the
   held-out questions, and it grows until they are ``held_out`` of the questions kept (held-out
   and train, step 3), at least one;
3. a question whose neighbourhood meets none of the held-out questions' neighbourhoods is a
   training question; the others (the buffer around the region) are left out, and counted.

A compact region, rather than held-out questions drawn at random, keeps the buffer small: drawn
at random, the held-out neighbourhoods cover a small model and nearly nothing is left to train on.
By environment (or model) whole environments (models) are drawn in a seeded order until the
held-out questions reach the share, with at least one left for training.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explaincheck.core.analysis.paired import question_identity
from explaincheck.core.campaign.neighbourhood import neighbourhood
from explaincheck.core.campaign.regrade import _oracle_from
from explaincheck.core.campaign.split_file import (
    BY_CHOICES,
    BY_ENVIRONMENT,
    BY_STATE,
    Split,
    SplitCase,
    check_rule,
)
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.store import Store, software_version


@dataclass
class _Question:
    """One distinct question of one model, with every case key of it."""

    model: tuple[str, str]
    identity: str
    states: tuple[int, ...]
    near: frozenset[int]
    cases: list[SplitCase] = field(default_factory=list)


OracleSource = Callable[[dict[str, Any] | None, str], OracleResult]


def make_split(
    db_path: str | Path,
    *,
    by: str = BY_STATE,
    held_out: float = 0.3,
    seed: int = 0,
    oracle_of: OracleSource = _oracle_from,
) -> Split:
    """The split of every case of ``db_path`` (any LLM, any campaign): the rule is checked
    before it is returned."""
    if by not in BY_CHOICES:
        raise ExplaincheckError(f"unknown --by {by!r} (valid: {', '.join(BY_CHOICES)})")
    if not 0 <= held_out < 1:
        raise ExplaincheckError(f"--held-out must be a share from 0 to below 1 (got {held_out})")
    questions, oracles = _questions(Path(db_path), oracle_of)
    if not questions:
        raise ExplaincheckError(f"{db_path} holds no results to split")
    by_model: dict[tuple[str, str], list[_Question]] = {}
    for question in questions:
        by_model.setdefault(question.model, []).append(question)
    models: list[dict[str, Any]] = []
    if by == BY_STATE:
        held, train, left = [], [], []
        for model, found in by_model.items():
            region, h, t, left_out = _state_split(found, oracles[model], held_out, seed)
            held += h
            train += t
            left += left_out
            models.append(_model_entry(model, oracles[model], found, region))
    else:
        held, train, left = _unit_split(by_model, by, held_out, seed)
        models = [_model_entry(m, oracles[m], q, None) for m, q in by_model.items()]
    split = Split(
        by=by,
        held_out_share=held_out,
        seed=seed,
        train=tuple(c for q in train for c in q.cases),
        held_out=tuple(c for q in held for c in q.cases),
        left_out=tuple(c for q in left for c in q.cases),
        models=tuple(models),
        source=str(db_path),
        made_with=software_version(),
    )
    check_rule(split)
    return split


def _questions(
    db_path: Path, oracle_of: OracleSource
) -> tuple[list[_Question], dict[tuple[str, str], OracleResult]]:
    """Every distinct question of the file (per model, in the order first stored), each with
    its case keys, and the oracle of each model."""
    if not db_path.is_file():
        raise ExplaincheckError(f"{db_path}: no results database there")
    with Store.open(db_path, readonly=True) as store:
        settings = {c.model_hash: c.settings for c in store.campaigns()}
        rows = list(store.iter_executions(lean=True))
    oracles: dict[tuple[str, str], OracleResult] = {}
    found: dict[tuple[str, str, str], _Question] = {}
    keys: set[tuple[str, str, str]] = set()
    for row in rows:
        model = (row["environment"], row["model_hash"])
        key = (*model, row["case_key"])
        if key in keys:
            continue
        keys.add(key)
        if model not in oracles:
            oracles[model] = oracle_of(settings.get(model[1]), model[1])
        states = tuple(row["states"])
        identity = question_identity(row["case_key"])
        question = found.get((*model, identity))
        if question is None:
            near = frozenset(neighbourhood(oracles[model], states))
            question = found[(*model, identity)] = _Question(model, identity, states, near)
        question.cases.append(
            SplitCase(
                environment=model[0],
                model_hash=model[1],
                case_key=row["case_key"],
                category=row["category"],
                states=states,
                neighbourhood=tuple(sorted(question.near)),
                delta=float(row["delta"]),
                selection=row["selection"],
                index=int(row["case_index"]),
                positive=row.get("positive"),
                reading=bool(row.get("reading")),
                gap=row.get("gap"),
            )
        )
    return list(found.values()), oracles


def _state_split(
    questions: list[_Question], oracle: OracleResult, share: float, seed: int
) -> tuple[list[int], list[_Question], list[_Question], list[_Question]]:
    """(the held-out region, held-out, train, left-out questions) of one model. The region grows
    until the held-out questions are ``share`` of the questions kept (held-out and train): the
    buffer the rule needs is left out of neither side's count, so a small model still trains."""
    model_hash = questions[0].model[1]
    rng = random.Random(f"explaincheck/split/{seed}/{model_hash}")
    graph = _undirected(oracle)
    order = sorted(graph)
    rng.shuffle(order)
    rank = {state: i for i, state in enumerate(order)}
    asked = {s for q in questions for s in q.states}
    starts = [s for s in order if s in asked]
    missing = {id(q): len(set(q.states)) for q in questions}
    holding: dict[int, list[_Question]] = {}
    touching: dict[int, list[_Question]] = {}
    for question in questions:
        for state in set(question.states):
            holding.setdefault(state, []).append(question)
        for state in question.near:
            touching.setdefault(state, []).append(question)
    region: list[int] = []
    queued: set[int] = set()
    held: list[_Question] = []
    held_ids: set[int] = set()
    covered: set[int] = set()
    blocked: set[int] = set()  # questions whose neighbourhood meets a held-out one's
    queue: deque[int] = deque()

    def enough() -> bool:
        train = len(questions) - len(blocked | held_ids)
        return share <= 0 or (bool(held) and len(held) >= share * (len(held) + train))

    while len(questions) > 1 and not enough():
        if not queue:
            start = next((s for s in starts if s not in queued), None)
            if start is None:
                break
            queue.append(start)
            queued.add(start)
        state = queue.popleft()
        region.append(state)
        for question in holding.get(state, ()):
            missing[id(question)] -= 1
            if missing[id(question)] == 0:
                held.append(question)
                held_ids.add(id(question))
                for near in question.near - covered:
                    covered.add(near)
                    blocked.update(id(q) for q in touching.get(near, ()))
        for near in sorted(graph.get(state, ()), key=rank.__getitem__):
            if near not in queued:
                queued.add(near)
                queue.append(near)
    train = [q for q in questions if id(q) not in held_ids and id(q) not in blocked]
    chosen = held_ids | {id(q) for q in train}
    left = [q for q in questions if id(q) not in chosen]
    return sorted(region), held, train, left


def _undirected(oracle: OracleResult) -> dict[int, set[int]]:
    """The model's states with an edge between s and t when a choice moves one to the other."""
    graph: dict[int, set[int]] = {s: set() for s in range(oracle.model.states)}
    for state in range(oracle.model.states):
        for targets in oracle.state(state).successors.values():
            for target in targets:
                if target != state:
                    graph[state].add(target)
                    graph.setdefault(target, set()).add(state)
    return graph


def _unit_split(
    by_model: dict[tuple[str, str], list[_Question]], by: str, share: float, seed: int
) -> tuple[list[_Question], list[_Question], list[_Question]]:
    """Whole environments (or models) held out, in a seeded order, until the share is met."""
    units: dict[Any, list[_Question]] = {}
    for model, questions in by_model.items():
        units.setdefault(model[0] if by == BY_ENVIRONMENT else model, []).extend(questions)
    if len(units) < 2:
        word = "environments" if by == BY_ENVIRONMENT else "models"
        raise ExplaincheckError(
            f"--by {by} needs cases of two {word} or more; this file has one (use --by state)"
        )
    order = sorted(units, key=str)
    random.Random(f"explaincheck/split/{seed}/{by}").shuffle(order)
    total = sum(len(q) for q in units.values())
    held: list[_Question] = []
    for unit in order[:-1]:  # at least one unit stays for training
        if len(held) >= share * total or share <= 0:
            break
        held += units[unit]
    held_ids = {id(q) for q in held}
    train = [q for qs in units.values() for q in qs if id(q) not in held_ids]
    return held, train, []


def _model_entry(
    model: tuple[str, str],
    oracle: OracleResult,
    questions: list[_Question],
    region: list[int] | None,
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "environment": model[0],
        "model_hash": model[1],
        "states": oracle.model.states,
        "questions": len(questions),
    }
    if region is not None:
        entry["held_out_region"] = region
    return entry

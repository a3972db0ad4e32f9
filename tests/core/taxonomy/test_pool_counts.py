"""Applicability read from a large oracle's columns must say what its facts say.

Each oracle here is computed once as columns (``columnar_from=0``, as models of 5,000 states or
more are) and then seen a second time as a plain tuple of its ``StateFacts``: the same numbers,
so ``pool_counts`` takes its other path. Every count, and the whole ``applicability``, must
agree. The models cover bottlenecks, dead ends, ties, D = 1 − V and its absence."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import compute_in_process
from explaincheck.core.oracle.columnar import ColumnarStates
from explaincheck.core.oracle.do_nothing import do_nothing_summary
from explaincheck.core.oracle.types import VERIFIED, OracleRequest
from explaincheck.core.plugin_checks import counting_findings
from explaincheck.core.taxonomy import pool_counts
from explaincheck.core.taxonomy.registry import CATEGORIES, applicability
from explaincheck.core.taxonomy.safer import danger_is_complement
from explaincheck.core.taxonomy.satisfy import Satisfy

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from gridworld import gridworld_prism

MODELS = Path(__file__).resolve().parents[2] / "models"


def _both(request: OracleRequest):
    columnar = compute_in_process(request, columnar_from=0)
    assert isinstance(columnar.states, ColumnarStates)
    facts = dataclasses.replace(columnar, states=tuple(columnar.states))
    return columnar, facts


def _oracles():
    for env_id in BUILTIN_IDS:
        yield env_id, lambda env_id=env_id: load_builtin(env_id).request(method=VERIFIED)
    for name in ("tie.prism", "dead_end.prism", "shortcut.prism", "no_unsafe.prism"):
        yield name, lambda name=name: OracleRequest(str(MODELS / name), method=VERIFIED)
    yield (
        "corridor.prism",
        lambda: OracleRequest(
            str(MODELS / "corridor.prism"), constants="TARGET=4", method=VERIFIED
        ),
    )


@pytest.fixture(scope="module")
def grid_request(tmp_path_factory) -> OracleRequest:
    path = tmp_path_factory.mktemp("grid") / "grid12.prism"
    path.write_text(gridworld_prism(12))
    return OracleRequest(str(path), method=VERIFIED)


def _check(columnar, facts) -> None:
    for count in (
        pool_counts.non_goal_count,
        pool_counts.ranking_count,
        pool_counts.bottleneck_counts,
        pool_counts.dead_end_counts,
    ):
        assert count(columnar) == count(facts), count.__name__
    kept = pool_counts.decided_count(columnar, keep_do_nothing=True)
    assert kept == pool_counts.decided_count(facts, keep_do_nothing=True)
    assert do_nothing_summary(columnar) == do_nothing_summary(facts)
    quantities = ["value"] + (["danger"] if columnar.has_danger else [])
    if pool_counts.non_goal_count(facts):
        for quantity in quantities:
            assert pool_counts.spread_is_tied(columnar, quantity) == pool_counts.spread_is_tied(
                facts, quantity
            )
    assert danger_is_complement(columnar) == danger_is_complement(facts)
    assert applicability(columnar) == applicability(facts)


@pytest.mark.parametrize("name, request_of", list(_oracles()), ids=[n for n, _ in _oracles()])
def test_columns_and_facts_agree(name, request_of):
    _check(*_both(request_of()))


def test_columns_and_facts_agree_on_a_gridworld_with_bottlenecks(grid_request):
    columnar, facts = _both(grid_request)
    marked, unmarked = pool_counts.bottleneck_counts(columnar)
    assert marked >= 1 and unmarked > 0  # the wall's gap
    assert pool_counts.dead_end_counts(columnar)[0] > 0  # the holes
    _check(columnar, facts)


def test_no_facts_are_made_for_applicability(grid_request):
    columnar = compute_in_process(grid_request, columnar_from=0)
    applicability(columnar)
    made = sum(fact is not None for fact in columnar.states._made)
    assert made == 0
    # category by category, the check ``explaincheck plugins check`` runs on a plugin's: no
    # facts made, the same answer from the columns as from the facts
    for category in CATEGORIES.values():
        assert counting_findings(category, columnar) == []


def test_a_category_that_makes_facts_to_decide_is_found(grid_request):
    columnar = compute_in_process(grid_request, columnar_from=0)

    class Careless(Satisfy):
        id = "test/careless"

        def not_applicable(self, oracle):
            return None if any(s.value > 0 for s in oracle.states) else "no value above 0"

    (finding,) = counting_findings(Careless(), columnar)
    assert finding.problem == (
        "not_applicable made the facts of 1 state: count instead (core/taxonomy/pool_counts.py)"
    )


def test_moves_to_goal_counts_on_the_columns_what_the_facts_say(grid_request):
    columnar = compute_in_process(grid_request, columnar_from=0)
    facts = dataclasses.replace(columnar, states=tuple(columnar.states))
    on_columns = pool_counts.moves_to_goal(columnar)
    assert list(on_columns) == list(pool_counts.moves_to_goal(facts))
    goal = pool_counts.goal_flags(facts)
    assert list(goal) == [s.is_goal for s in facts.states]
    assert set(on_columns[goal]) == {0} and (on_columns[~goal] != 0).all()
    # one move further than the nearest successor, along transitions of positive probability
    for state in facts.states:
        if state.is_goal or on_columns[state.id] < 0:
            continue
        nearest = min(
            on_columns[t]
            for outcomes in state.successors.values()
            for t, p in outcomes.items()
            if p > 0 and on_columns[t] >= 0
        )
        assert on_columns[state.id] == nearest + 1
    assert (on_columns[[s.id for s in facts.states if s.dead_end]] == -1).all()

"""Bottlenecks: the one-pass dominator method agrees with the paper's per-state re-check."""

from __future__ import annotations

import pytest
from oracle_helpers import model

from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import bottlenecks
from explaincheck.core.oracle.storm import building, checking
from explaincheck.core.oracle.storm.structure import Choice, ModelStructure, read_structure
from explaincheck.core.oracle.types import OracleRequest

TEST_MODELS = [
    ("tie", ""),
    ("dead_end", ""),
    ("chain", ""),
    ("deadlock", ""),
    ("gambler", "N=3"),
    ("gambler", "N=6"),
    ("die", ""),
    ("no_unsafe", ""),
]


def built(request: OracleRequest, *, exact: bool = False):
    parsed = building.parse(request)
    storm_model = building.build(
        parsed, exact=exact, state_limit=request.state_limit, path=request.model_path
    )
    return storm_model, read_structure(storm_model, exact=exact)


def both_methods(request: OracleRequest, *, exact: bool = False) -> tuple[set[int], set[int]]:
    storm_model, structure = built(request, exact=exact)
    goal = structure.with_label(request.goal_label)
    return (
        bottlenecks.by_dominators(structure, goal),
        checking.by_rechecking(storm_model, structure, request.goal_label),
    )


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_methods_agree_on_builtin_environments(env_id):
    dominators, rechecked = both_methods(load_builtin(env_id).request())
    assert dominators == rechecked


@pytest.mark.parametrize(("name", "constants"), TEST_MODELS)
def test_methods_agree_on_test_models(name, constants):
    dominators, rechecked = both_methods(OracleRequest(model(name), constants=constants))
    assert dominators == rechecked


@pytest.mark.parametrize("n", [5, 7])
def test_methods_agree_on_gridworlds(gridworld, n):
    dominators, rechecked = both_methods(OracleRequest(gridworld(n)))
    assert dominators == rechecked
    assert len(dominators) == 3  # the gap in the wall of holes and its two neighbours


@pytest.mark.parametrize("name", ["chain", "gambler"])
def test_rechecking_accepts_rational_models(name):
    request = OracleRequest(model(name), constants="N=4" if name == "gambler" else "")
    dominators, rechecked = both_methods(request, exact=True)
    assert dominators == rechecked and dominators


def test_oracle_reports_the_dominator_set(oracle):
    request = OracleRequest(model("gambler"), constants="N=6")
    result = oracle(request)
    dominators, _ = both_methods(request)
    assert set(result.bottlenecks) == dominators
    assert {result.state(i).valuation["x"] for i in dominators} == {2, 3, 4, 5}


def line(n: int, goal: set[int], initial: int = 0, extra=()) -> tuple[ModelStructure, list[bool]]:
    """States 0..n-1 with an action "next" i -> i+1 (and ``extra`` edges as second actions)."""
    choices = [[Choice("next", {min(i + 1, n - 1): 1.0})] for i in range(n)]
    for source, target in extra:
        choices[source].append(Choice("jump", {target: 1.0}))
    structure = ModelStructure(initial, [{"i": i} for i in range(n)], [()] * n, choices, ("i",), ())
    return structure, [i in goal for i in range(n)]


def test_dominators_of_a_line_and_a_shortcut():
    assert bottlenecks.by_dominators(*line(5, {4})) == {1, 2, 3}
    assert bottlenecks.by_dominators(*line(5, {4}, extra=[(0, 2)])) == {2, 3}
    # a run ends at the first goal it enters: states behind a goal are never bottlenecks
    assert bottlenecks.by_dominators(*line(5, {2, 4})) == {1}


def test_no_bottlenecks_without_a_path_or_when_starting_in_the_goal():
    assert bottlenecks.by_dominators(*line(5, set())) == set()
    assert bottlenecks.by_dominators(*line(5, {4}, initial=4)) == set()
    unreachable, goal = line(5, {0}, initial=2)
    assert bottlenecks.by_dominators(unreachable, goal) == set()

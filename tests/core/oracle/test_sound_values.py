"""The verified method asks Storm first (issue 33.10-11): where its interval iteration converges,
V and D are the midpoints of its sound bounds, the scheduler is Storm's, and policy iteration
is not run; where Storm stops unconverged, policy iteration gives them as before."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from test_real_prism import key_grid

from explaincheck.core.oracle import compute_in_process, sound_values
from explaincheck.core.oracle.arrays import reaching
from explaincheck.core.oracle.certificate import STORM_METHOD
from explaincheck.core.oracle.objective import MAX, MIN, Objective
from explaincheck.core.oracle.sound_values import (
    VALUE_WIDTH,
    storm_answers,
    usable,
    values_from,
)
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.bulk import read_bulk
from explaincheck.core.oracle.storm.checking import SoundBounds, sound_bounds
from explaincheck.core.oracle.types import EXACT, VERIFIED, OracleRequest
from explaincheck.core.oracle.values import TIE_TOLERANCE, _evaluate

STORM_WORDS = "V: Storm's interval iteration to 1e-12, the midpoint of its sound bounds"


@pytest.fixture(scope="module")
def key_grid_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("sound") / "key8.prism"
    path.write_text(key_grid(8))
    return str(path)


@pytest.mark.parametrize("columnar_from", [10**9, 0])
def test_storm_values_equal_the_exact_ones_within_the_stated_error(key_grid_path, columnar_from):
    exact = compute_in_process(OracleRequest(key_grid_path, method=EXACT))
    verified = compute_in_process(
        OracleRequest(key_grid_path, method=VERIFIED), columnar_from=columnar_from
    )
    assert verified.values_method.startswith(STORM_WORDS), verified.values_method
    assert "D: Storm's interval iteration" in verified.values_method
    assert "policy iteration" not in verified.values_method
    assert verified.certificate.method == STORM_METHOD
    # the midpoint is off by at most half the certificate's width, itself far below the ties'
    error = verified.certificate.max_width / 2
    assert 0 < error <= VALUE_WIDTH / 2 <= TIE_TOLERANCE / 10
    worst = 0.0
    for truth, facts in zip(exact.states, verified.states, strict=True):
        worst = max(worst, abs(Fraction(facts.value) - Fraction(truth.value_exact)))
        assert abs(Fraction(facts.value) - Fraction(truth.value_exact)) <= Fraction(error)
        assert abs(Fraction(facts.danger) - Fraction(truth.danger_exact)) <= Fraction(error)
        assert facts.dead_end == truth.dead_end
        assert facts.best == truth.best and facts.worst == truth.worst
        for action, q in facts.q.items():
            assert abs(Fraction(q) - Fraction(truth.q_exact[action])) <= Fraction(error)
    assert worst > 0  # floats, not the exact fractions: the comparison above has teeth


def test_storms_scheduler_attains_the_values(key_grid_path):
    """Storm's scheduler is optimal and leaves end components: the chain it induces reaches
    the goal with probability V from every state."""
    parsed = building.parse(OracleRequest(key_grid_path))
    model = building.build(parsed, exact=False, state_limit=10**6, path=key_grid_path)
    bulk = read_bulk(model)
    goal = bulk.with_label("goal")
    storm = sound_bounds(model, parsed.properties[0], iterations=10_000, scheduler=True)
    assert storm is not None and storm.converged and storm.scheduler is not None
    objectives = [Objective("V", MAX, goal, parsed.properties[0], True)]
    found = values_from(bulk.arrays, objectives, storm_answers(model, bulk.arrays, objectives))
    assert found.rounds == 0 and found.danger is None
    assert np.array_equal(found.scheduler, storm.scheduler)
    chain = _evaluate(bulk.arrays, found.scheduler, goal, ~reaching(bulk.arrays.state_graph, goal))
    assert np.max(np.abs(chain - found.value)) <= 1e-10
    assert np.array_equal(found.q, bulk.arrays.rows @ found.value)


def test_the_fallback_is_taken_where_storm_stops_unconverged(gridworld):
    """The slippery gridworld's near-end components keep Storm's upper bound 0.2 wide."""
    result = compute_in_process(OracleRequest(gridworld(30), method=VERIFIED))
    words = result.values_method
    assert "V: policy iteration from Storm's scheduler" in words
    assert "Storm's interval iteration stopped unconverged" in words
    assert result.certificate.method != STORM_METHOD  # the own bounds were computed
    assert result.certificate.max_width <= 1e-6
    for facts in result.states:
        low, high = facts.value_interval
        assert low <= facts.value <= high


def test_storm_cut_short_gives_the_same_values_by_policy_iteration(monkeypatch, key_grid_path):
    """Storm allowed 3 iterations stops unconverged: both quantities come from policy
    iteration, and they agree with Storm's converged midpoints within the stated error."""
    first = compute_in_process(OracleRequest(key_grid_path, method=VERIFIED), columnar_from=0)
    monkeypatch.setattr(sound_values, "VALUE_ITERATIONS", (3,))
    monkeypatch.setattr(sound_values, "sound_iterations", lambda transitions: 3)
    second = compute_in_process(OracleRequest(key_grid_path, method=VERIFIED), columnar_from=0)
    assert "V: policy iteration" in second.values_method
    assert "D: policy iteration" in second.values_method
    assert second.values_method.count("stopped unconverged") == 2
    for a, b in zip(first.states, second.states, strict=True):
        assert a.value == pytest.approx(b.value, abs=1e-10)
        assert a.danger == pytest.approx(b.danger, abs=1e-10)
        assert a.best == b.best


def test_converged_bounds_are_not_the_values_when_their_round_off_is_too_wide(key_grid_path):
    parsed = building.parse(OracleRequest(key_grid_path))
    model = building.build(parsed, exact=False, state_limit=10**6, path=key_grid_path)
    arrays = read_bulk(model).arrays
    storm = sound_bounds(model, parsed.properties[0], iterations=10_000)
    assert storm is not None and usable(storm, arrays)
    # the same bounds, had Storm been allowed 10^7 iterations: round-off alone ~1e-8
    allowed = SoundBounds(storm.lower, storm.upper, True, 10**7)
    assert not usable(allowed, arrays)
    assert not usable(None, arrays)


def test_storm_is_asked_with_the_smallest_cap_that_converges(monkeypatch, key_grid_path):
    """The round-off allowance grows with the cap: a model converging within the first cap
    keeps the small one (and its narrow certificate); cut shorter, the next cap is tried."""
    parsed = building.parse(OracleRequest(key_grid_path))
    model = building.build(parsed, exact=False, state_limit=10**6, path=key_grid_path)
    bulk = read_bulk(model)
    goal, unsafe = bulk.with_label("goal"), bulk.with_label("unsafe")
    objectives = [
        Objective("V", MAX, goal, parsed.properties[0], True),
        Objective("D", MIN, unsafe, parsed.properties[1]),
    ]
    # the key grid has cycles: no topological depth, interval iteration
    value, danger = (sound_values.storm_bounds(model, o, None, bulk.arrays) for o in objectives)
    assert value is not None and danger is not None
    assert value.converged and value.iterations == sound_values.VALUE_ITERATIONS[0]
    assert value.scheduler is not None and danger.scheduler is None
    first_row = bulk.arrays.first_row
    prop = parsed.properties[0]
    escalated = sound_values._converging(model, prop, 10**5, False, first_row)
    assert escalated is not None and escalated.iterations == sound_values.VALUE_ITERATIONS[0]
    last = sound_values.VALUE_ITERATIONS[-1]
    monkeypatch.setattr(sound_values, "VALUE_ITERATIONS", (2, last))
    escalated = sound_values._converging(model, prop, 10**5, False, first_row)
    assert escalated is not None and escalated.converged and escalated.iterations == last


def test_graph_facts_keep_exact_intervals_under_storms_certificate(key_grid_path):
    """Goal states (V = 1), states without a path to the goal (V = 0) and unsafe states
    (D = 1) are graph facts: no round-off allowance widens them, so a tie between two actions
    that lead to such states stays a certain tie (``taxonomy.uncertainty``)."""
    result = compute_in_process(OracleRequest(key_grid_path, method=VERIFIED), columnar_from=0)
    assert result.certificate.method == STORM_METHOD and result.certificate.max_width > 0
    goals = [s for s in result.states if s.is_goal]
    dead = [s for s in result.states if s.dead_end]
    unsafe = [s for s in result.states if s.is_unsafe]
    assert goals and dead and unsafe
    assert all(s.value == 1.0 and s.value_interval == (1.0, 1.0) for s in goals)
    assert all(s.value == 0.0 and s.value_interval == (0.0, 0.0) for s in dead)
    assert all(s.danger == 1.0 and s.danger_interval == (1.0, 1.0) for s in unsafe)
    inner = [s for s in result.states if not (s.is_goal or s.dead_end)]
    assert any(s.value_interval[1] > s.value_interval[0] for s in inner)

"""Q, A* and A° of a property (``core/oracle/property_values.py``), checked by hand on
tests/models/rewards_four.prism (issue 49's "Must show") and against Storm on real models: the
step-bounded product's values equal Storm's ``F<=k`` check at every layer k."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from oracle_helpers import model

from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.oracle import property_values as pv
from explaincheck.core.oracle.arrays import choice_arrays
from explaincheck.core.oracle.property import MAX, MIN, parse_property
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.properties import check_property
from explaincheck.core.oracle.storm.structure import read_structure
from explaincheck.core.oracle.types import OracleRequest

FOUR = model("rewards_four")
START, GOAL, JUNCTION, PIT = 0, 1, 2, 3  # Storm's numbering (exploration order)


def _exact(path: str = FOUR, constants: str = ""):
    parsed = building.parse(OracleRequest(path, constants=constants))
    building.build(parsed, exact=False, state_limit=10_000, path=path)
    built = building.build(parsed, exact=True, state_limit=10_000, path=path)
    structure = read_structure(built, exact=True)
    return parsed, built, structure


def _choices(structure):
    return [[dict(c.probabilities) for c in cs] for cs in structure.choices]


def test_expected_time_by_hand_exact_rationals_and_an_infinite_state():
    """R{"time"}min=? [F "goal"] on four states, derived by hand (the model's header):
    V(junction) = 1 + 3/5 · V(junction) = 5/2 by climbing (jumping risks the pit, ∞);
    Q(start, fast) = 1 + 2 + 1/2 · 5/2 = 17/4, Q(start, safe) = 1 + 5/2 = 7/2 = V(start)."""
    parsed, built, structure = _exact()
    prop = parse_property('R{"time"}min=? [F "goal"]')
    checked = check_property(built, parsed.program, prop, exact=True)
    assert checked.exact == [Fraction(7, 2), 0, Fraction(5, 2), math.inf]
    ended = pv.terminal_states(prop, checked.target, checked.stay)
    assert ended.tolist() == [False, True, False, False]
    q = pv.q_values_exact(_choices(structure), checked.exact, checked.rewards_exact, ended)
    # start: fast, safe; goal: Storm's closing loop (ended: Q = V); junction: risky, slow; pit
    assert q == [[Fraction(17, 4), Fraction(7, 2)], [0], [math.inf, Fraction(5, 2)], [math.inf]]
    best, worst = pv.optimal_exact(q[START], MIN)
    assert (best, worst) == ({1}, {0})  # A*(start) = {safe}: the LOWER expected time
    assert pv.optimal_exact(q[JUNCTION], MIN) == ({1}, {0})  # slow best, risky (∞) worst
    assert pv.optimal_exact(q[START], MAX) == ({0}, {1})  # under Rmax the order turns round
    # the float pass gives the same numbers in one vectorised product
    arrays = choice_arrays(structure)
    floats = pv.q_values(arrays, checked.values, checked.rewards, ended)
    assert floats.tolist() == [4.25, 3.5, 0.0, math.inf, 2.5, math.inf]
    best_rows, worst_rows = pv.optimal_rows(arrays, floats, MIN, 1e-9)
    assert best_rows.tolist() == [False, True, True, False, True, True]
    assert worst_rows.tolist() == [True, False, True, True, False, True]
    assert pv.ordering_keys([Fraction(17, 4), Fraction(7, 2)], MIN) == [
        Fraction(-17, 4),
        Fraction(-7, 2),
    ]
    assert pv.failing_value(prop) == math.inf  # the pit is this property's dead end
    assert pv.finite_range(checked.values) == (0.0, 3.5)


def test_until_ends_the_run_outside_the_stay_set():
    parsed, built, structure = _exact()
    prop = parse_property('Pmin=? [!"unsafe" U "goal"]')
    checked = check_property(built, parsed.program, prop, exact=True)
    ended = pv.terminal_states(prop, checked.target, checked.stay)
    assert ended.tolist() == [False, True, False, True]  # the goal and the pit
    q = pv.q_values_exact(_choices(structure), checked.exact, None, ended)
    assert q[JUNCTION] == [Fraction(3, 4), Fraction(17, 20)] and q[PIT] == [0]
    assert pv.failing_value(prop) == 1.0
    # the bottleneck graph of an until: nothing leaves a failed state
    blocked = pv.without_exits(choice_arrays(structure), ended & ~checked.target)
    assert blocked.rows[blocked.first_row[PIT] :].nnz == 0


def test_deadline_product_by_hand():
    parsed, built, structure = _exact()
    prop = parse_property('Pmax=? [F<=2 "goal"]')
    checked = check_property(built, parsed.program, prop, exact=True)
    product = pv.bounded_product(choice_arrays(structure), checked.target, 2, structure.initial)
    pairs = list(zip(product.base_state.tolist(), product.steps_left.tolist(), strict=True))
    # (start, 2) -> the goal or the junction with 1 step -> the goal, the junction or the pit
    assert pairs == [(START, 2), (GOAL, 1), (JUNCTION, 1), (GOAL, 0), (JUNCTION, 0), (PIT, 0)]
    assert product.ended.tolist() == [False, True, False, True, True, True]
    values, q_rows = pv.bounded_values_exact(product, _choices(structure), MAX)
    assert values == [Fraction(7, 8), 1, Fraction(3, 4), 1, 0, 0]
    assert q_rows[0] == [Fraction(7, 8), Fraction(3, 4)]  # fast, safe
    assert q_rows[2] == [Fraction(3, 4), Fraction(2, 5)]  # risky, slow: one step left
    floats, q = pv.bounded_values(product, MAX)
    assert np.allclose(q, [float(x) for row in q_rows for x in row])
    assert np.allclose(floats, [float(v) for v in values])
    assert values[0] == checked.exact[START]  # V(s0, K) is Storm's F<=K at s0


@pytest.mark.parametrize(("env_id", "bound"), [("frozen_lake", 6), ("wolf_goat_cabbage", 7)])
def test_every_layer_of_the_product_is_storms_bounded_check(env_id, bound):
    """V(s, k) of every pair equals Storm's ``Pmax=? [F<=k "goal"]`` at s, for every k."""
    env = load_builtin(env_id)
    parsed, built, structure = _exact(env.model_path, env.constants)
    prop = parse_property(f'Pmax=? [F<={bound} "goal"]')
    checked = check_property(built, parsed.program, prop, exact=True)
    product = pv.bounded_product(choice_arrays(structure), checked.target, bound, structure.initial)
    values, _ = pv.bounded_values_exact(product, _choices(structure), MAX)
    by_layer = {
        k: check_property(
            built, parsed.program, parse_property(f'Pmax=? [F<={k} "goal"]'), exact=True
        ).exact
        for k in range(bound + 1)
    }
    for state, (base, left) in enumerate(
        zip(product.base_state.tolist(), product.steps_left.tolist(), strict=True)
    ):
        assert values[state] == by_layer[left][base], (base, left)
    assert len(set(product.steps_left.tolist())) == bound + 1

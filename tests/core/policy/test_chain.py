"""The induced chain: hand values on a 3-state model, an independent numpy solve on Frozen Lake,
the optimal policy's zero loss, and shares that add up to the loss exactly."""

from __future__ import annotations

from fractions import Fraction

import pytest
from policy_helpers import lake_oracle, numpy_value, three_oracle

from explaincheck.core.policy.chain import solve_policy
from explaincheck.core.policy.loading import (
    load_policy,
    policy_from_callable,
    write_policy,
)


def test_three_state_hand_values():
    oracle = three_oracle()
    chain = solve_policy(oracle, policy_from_callable(lambda v: "a:1/2,b:1/2", oracle))
    s0 = chain.state(0)
    assert chain.exact
    assert s0.value_exact == Fraction(7, 16)
    assert s0.danger_exact == Fraction(9, 16)
    assert s0.regret_exact == Fraction(1, 20)
    assert s0.visits == pytest.approx(5 / 4)
    assert chain.value_loss_exact == Fraction(1, 16)
    assert s0.q == {"a": pytest.approx(0.5), "b": pytest.approx(0.2 + 0.4 * 7 / 16)}


def test_three_state_only_b_is_a_third():
    oracle = three_oracle()
    chain = solve_policy(oracle, policy_from_callable(lambda v: "b", oracle))
    assert chain.state(0).value_exact == Fraction(1, 3)
    assert chain.value_loss_exact == Fraction(1, 2) - Fraction(1, 3)


def test_optimal_policy_written_and_loaded_back_has_no_loss(tmp_path):
    oracle = lake_oracle()
    optimal = policy_from_callable(lambda v: None, oracle, default="optimal")
    path = tmp_path / "optimal.csv"
    write_policy(optimal, oracle, path)
    loaded = load_policy(path, oracle).policy
    assert loaded.choices == optimal.choices and not loaded.defaulted
    chain = solve_policy(oracle, loaded)
    assert chain.value_loss_exact == 0
    assert all(s.optimal for s in chain.states)
    assert chain.state(chain.initial).value_exact == Fraction(oracle.initial.value_exact)


@pytest.mark.parametrize(
    "choice",
    ["left", "left:0.5,down:0.5", "up:0.1,right:0.2,down:0.3,left:0.4"],
    ids=["always-left", "left-or-down", "all-four"],
)
def test_lake_values_agree_with_numpy(choice):
    oracle = lake_oracle()
    policy = policy_from_callable(lambda v: choice, oracle)
    chain = solve_policy(oracle, policy)
    reference = numpy_value(oracle, lambda s: policy.distribution(s.id))
    for state in chain.states:
        assert state.value == pytest.approx(reference[state.id], abs=1e-12)
        assert float(state.value_exact) == pytest.approx(reference[state.id], abs=1e-12)
    assert chain.value_loss == pytest.approx(oracle.initial.value - reference[oracle.model.initial])


def test_always_left_reaches_less_than_optimal():
    oracle = lake_oracle()
    chain = solve_policy(oracle, policy_from_callable(lambda v: "left", oracle))
    assert chain.value_loss > 0.5  # left keeps the walker on the left edge, next to the hole
    assert chain.losing_most(1)[0].share > 0


def test_shares_add_up_to_the_loss_exactly():
    oracle = lake_oracle()
    chain = solve_policy(oracle, policy_from_callable(lambda v: "up:1/2,right:1/2", oracle))
    total = sum((s.share_exact for s in chain.states), Fraction(0))
    s0 = chain.state(chain.initial)
    assert total == Fraction(oracle.initial.value_exact) - s0.value_exact
    assert chain.value_loss_exact == total > 0


def test_verified_oracle_gives_floats_with_a_small_residual():
    exact, verified = lake_oracle("exact"), lake_oracle("verified")
    choice = "left:0.25,down:0.25,right:0.25,up:0.25"
    a = solve_policy(exact, policy_from_callable(lambda v: choice, exact))
    b = solve_policy(verified, policy_from_callable(lambda v: choice, verified))
    assert a.exact and not b.exact and b.value_loss_exact is None
    assert b.residual < 1e-12
    for x, y in zip(a.states, b.states, strict=True):
        assert y.value == pytest.approx(x.value, abs=1e-9)
        assert y.danger == pytest.approx(x.danger, abs=1e-9)
        assert y.regret == pytest.approx(x.regret, abs=1e-9)

"""The loss over every choice at the states a policy did not choose (issue 51.4): its two ends
equal the least and the greatest loss over every deterministic choice there, enumerated and
solved one by one; a loop that avoids the goal forever gives the greatest loss V*(s0)."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from fractions import Fraction

from policy_helpers import MODELS, lake_oracle

from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.policy.chain import solve_policy
from explaincheck.core.policy.loading import complete
from explaincheck.core.policy.unchosen import loss_interval


def enumerated(oracle, policy, free):
    """(least, greatest) loss over every deterministic choice at ``free``, by brute force."""
    losses = []
    for combo in itertools.product(*[list(oracle.state(s).q) for s in free]):
        choices = {
            **policy.choices,
            **{s: {a: Fraction(1)} for s, a in zip(free, combo, strict=True)},
        }
        losses.append(solve_policy(oracle, replace(policy, choices=choices)).value_loss_exact)
    return min(losses), max(losses)


def test_the_two_ends_are_the_best_and_the_worst_choices_at_the_free_states():
    oracle = lake_oracle()
    deciding = [s.id for s in oracle.states if not s.is_goal and len(s.q) >= 2]
    rng = random.Random(3)
    for _ in range(2):
        chosen = rng.sample(deciding, len(deciding) - 3)
        given = {s: {rng.choice(list(oracle.state(s).q)): Fraction(1)} for s in chosen}
        policy = complete(oracle, given, "test", "uniform")
        free = tuple(sorted(policy.defaulted))
        found = loss_interval(oracle, policy, free)
        assert found.exact and found.free == free
        assert (found.low, found.high) == enumerated(oracle, policy, free)
        assert found.low <= solve_policy(oracle, policy).value_loss_exact <= found.high


def test_a_free_state_that_can_wait_forever_makes_the_greatest_loss_v_star():
    """The corridor: a free tile whose wait never reaches the exit; every other tile moves
    right. Best choice there: right (loss 0); worst: wait (the run never ends: loss 1)."""
    oracle = compute_oracle(OracleRequest(str(MODELS / "corridor.prism"), "TARGET=4"))
    start = oracle.model.initial
    given = {
        s.id: {"right": Fraction(1)}
        for s in oracle.states
        if not s.is_goal and len(s.q) >= 2 and s.id != start
    }
    policy = complete(oracle, given, "test", "uniform")
    found = loss_interval(oracle, policy, (start,))
    assert (found.low, found.high) == (0, 1) == enumerated(oracle, policy, (start,))
    assert not found.point
    none = loss_interval(oracle, policy, ())
    assert none.point and none.low == solve_policy(oracle, policy).value_loss_exact


def test_under_a_minimal_probability_until_the_ends_are_in_its_direction():
    """Pmin [!unsafe U goal] on rewards_four (V* = 3/4 at the start): the loss is V^π − V*, so
    the best free choice is the least value and the worst the greatest; both ends checked
    against enumeration, at the start and at the junction."""
    from support.property_oracle import property_oracle

    oracle = property_oracle("tests/models/rewards_four.prism", 'Pmin=? [!"unsafe" U "goal"]')
    deciding = [s.id for s in oracle.states if len(s.q) >= 2 and not s.is_goal]
    for free in [(s,) for s in deciding] + [tuple(deciding)]:
        given = {s: {sorted(oracle.state(s).q)[0]: Fraction(1)} for s in deciding if s not in free}
        policy = complete(oracle, given, "test", "uniform")
        found = loss_interval(oracle, policy, free)
        assert found.bounded and found.exact
        assert (found.low, found.high) == enumerated(oracle, policy, tuple(sorted(free)))
    every = loss_interval(oracle, complete(oracle, {}, "test", "uniform"), tuple(deciding))
    assert every.low == 0 and every.high == Fraction(1, 4)


def test_an_expected_reward_is_not_bounded_and_says_so():
    from support.property_oracle import property_oracle

    oracle = property_oracle("tests/models/rewards_four.prism", 'R{"time"}min=? [F "goal"]')
    policy = complete(oracle, {}, "test", "uniform")  # it may jump into the pit: infinite
    found = loss_interval(oracle, policy, tuple(policy.defaulted))
    assert not found.bounded and found.point
    assert float(found.low) == solve_policy(oracle, policy).value_loss == float("inf")
    junction = next(s.id for s in oracle.states if "slow" in s.q)
    climbing = complete(oracle, {junction: {"slow": Fraction(1)}}, "test", "uniform")
    found = loss_interval(oracle, climbing, tuple(climbing.defaulted))
    assert not found.bounded and found.low == solve_policy(oracle, climbing).value_loss_exact
    assert found.low == Fraction(3, 8)  # half the time it hurries: 1/2 · (17/4 − 7/2)

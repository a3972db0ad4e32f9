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


TRAP = """mdp
module m
  s : [0..5] init 0;
  [a] s=0 -> 1/2:(s'=1) + 1/2:(s'=2);
  [b] s=0 -> (s'=3);
  [a] s=1 -> 2/3:(s'=5) + 1/3:(s'=0);
  [b] s=1 -> (s'=4);
  [a] s=2 -> (s'=5);
  [b] s=2 -> 1/2:(s'=2) + 1/2:(s'=5);
  [a] s=3 -> 1/3:(s'=5) + 2/3:(s'=1);
  [b] s=3 -> (s'=3);
  [a] s=4 -> (s'=5);
  [wait] s=5 -> true;
endmodule
label "goal" = s=5;
rewards "cost"
  [a] true : 1;
  [b] true : 2;
  s=2 : 3;
endrewards
"""
# the same without the trap: every choice reaches the goal, so a maximum is finite
PROPER = TRAP.replace("[b] s=3 -> (s'=3);", "[b] s=3 -> (s'=4);")


def reward_oracle(tmp_path, text: str, prop: str):
    from explaincheck.core.oracle.compute import compute_in_process
    from explaincheck.core.oracle.property import parse_property

    path = tmp_path / "costs.prism"
    path.write_text(text)
    request = OracleRequest(str(path), method="exact", property=parse_property(prop))
    return compute_in_process(request)


def reward_losses(oracle, policy, free):
    """(least, greatest) loss over every deterministic choice at ``free``, by brute force:
    exact where finite, infinite where the choice may miss the goal."""
    losses = []
    for combo in itertools.product(*[list(oracle.state(s).q) for s in free]):
        choices = {
            **policy.choices,
            **{s: {a: Fraction(1)} for s, a in zip(free, combo, strict=True)},
        }
        chain = solve_policy(oracle, replace(policy, choices=choices))
        exact = chain.value_loss_exact
        losses.append(exact if exact is not None else chain.value_loss)
    return min(losses), max(losses)


def test_an_expected_rewards_ends_are_the_best_and_the_worst_choices(tmp_path):
    """Rmin and Rmax of a cost, with a trap (a loop that never reaches the goal: an infinite
    total) and without: every subset of the decision states left free, every fixed choice
    elsewhere, both ends against enumeration."""
    cases = [
        (TRAP, 'R{"cost"}min=? [F "goal"]'),
        (PROPER, 'R{"cost"}min=? [F "goal"]'),
        (PROPER, 'R{"cost"}max=? [F "goal"]'),
    ]
    seen = set()
    for text, prop in cases:
        oracle = reward_oracle(tmp_path, text, prop)
        deciding = [s.id for s in oracle.states if len(s.q) >= 2 and not s.is_goal]
        assert len(deciding) == 4
        for size in range(len(deciding) + 1):
            for free in itertools.combinations(deciding, size):
                fixed = [s for s in deciding if s not in free]
                for picks in itertools.product(*[sorted(oracle.state(s).q) for s in fixed]):
                    given = {s: {a: Fraction(1)} for s, a in zip(fixed, picks, strict=True)}
                    policy = complete(oracle, given, "test", "uniform")
                    found = loss_interval(oracle, policy, free)
                    assert found.bounded and found.exact
                    assert (found.low, found.high) == reward_losses(oracle, policy, free), (
                        prop,
                        free,
                        picks,
                    )
                    seen.add((found.low == found.high, float(found.high) == float("inf")))
    assert seen == {(True, False), (False, False), (False, True), (True, True)}


def test_an_expected_reward_under_rewards_four(tmp_path):
    """The hand-checked four states (module text of rewards_four.prism): V*(start) = 7/2 by
    safe then slow; fast costs 17/4; risky may fall into the pit (infinite)."""
    from support.property_oracle import property_oracle

    oracle = property_oracle("tests/models/rewards_four.prism", 'R{"time"}min=? [F "goal"]')
    start = oracle.model.initial
    junction = next(s.id for s in oracle.states if "slow" in s.q)
    every = loss_interval(oracle, complete(oracle, {}, "test", "uniform"), (start, junction))
    assert every.bounded and (every.low, every.high) == (0, float("inf"))
    climbing = complete(oracle, {junction: {"slow": Fraction(1)}}, "test", "uniform")
    found = loss_interval(oracle, climbing, (start,))
    assert (found.low, found.high) == (0, Fraction(3, 4))  # safe: 7/2; fast: 17/4
    hurrying = complete(oracle, {start: {"fast": Fraction(1)}}, "test", "uniform")
    found = loss_interval(oracle, hurrying, (junction,))
    assert (found.low, found.high) == (Fraction(3, 4), float("inf"))  # slow; risky

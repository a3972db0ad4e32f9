"""A policy's induced chain under a property (issue 49, point 4): V^π of an expected reward,
of an until and of a deadline, value loss in the property's units and direction, ∞ where π
never reaches the target for sure, the shares adding up to the loss, and strict JSON."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from support.property_oracle import property_oracle

from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.oracle.serialization import to_contract
from explaincheck.core.policy.chain import solve_policy
from explaincheck.core.policy.contract import add_policy
from explaincheck.core.policy.loading import complete
from explaincheck.core.policy.types import OPTIMAL, UNIFORM, Policy

FOUR = "tests/models/rewards_four.prism"
START, GOAL, JUNCTION, PIT = 0, 1, 2, 3
ONE = Fraction(1)


@pytest.fixture(scope="module")
def time_min():
    return property_oracle(FOUR, 'R{"time"}min=? [F "goal"]')


def _policy(start: str, junction: str) -> Policy:
    return Policy({START: {start: ONE}, JUNCTION: {junction: ONE}, PIT: {"wait": ONE}}, "test")


def test_expected_time_of_a_policy_and_its_loss_in_hours(time_min):
    optimal = solve_policy(time_min, _policy("safe", "slow"))
    assert optimal.exact and optimal.value_loss == 0 and optimal.value_loss_exact == 0
    hurried = solve_policy(time_min, _policy("fast", "slow"))
    # V^π(start) = 1 + 2 + 1/2 · 5/2 = 17/4, V* = 7/2: it loses 3/4 of an hour, all at the start
    assert hurried.state(START).value_exact == Fraction(17, 4)
    assert hurried.value_loss == 0.75 and hurried.value_loss_exact == Fraction(3, 4)
    assert hurried.state(START).regret_exact == Fraction(3, 4)
    assert [s.share for s in hurried.losing_most()] == [0.75]
    jumper = solve_policy(time_min, _policy("safe", "risky"))
    # the jump risks the pit, which never reaches the goal: an infinite expected time
    assert math.isinf(jumper.state(START).value) and jumper.state(START).value_exact is None
    assert math.isinf(jumper.value_loss) and jumper.value_loss_exact is None
    assert jumper.state(START).stranded and not jumper.state(PIT).stranded  # V*(pit) = ∞ too
    contract = add_policy(to_contract(time_min), jumper)
    json.dumps(contract, allow_nan=False)
    assert contract["model"]["value_loss"] is None and contract["model"]["value_loss_infinite"]
    assert contract["states"][START]["V_policy_infinite"] is True


def test_a_minimal_probability_until_loses_in_its_direction():
    avoid = property_oracle(FOUR, 'Pmin=? [!"unsafe" U "goal"]')
    best = solve_policy(avoid, _policy("safe", "risky"))  # V* = 3/4: jump, risk the pit
    assert best.value_loss == 0 and best.state(START).value_exact == Fraction(3, 4)
    careful = solve_policy(avoid, _policy("safe", "slow"))  # climbing reaches the goal surely
    assert careful.state(START).value_exact == 1
    assert careful.value_loss_exact == Fraction(1, 4)  # V^π − V*: more of what is minimised
    # climbing once, then jumping: Q*(junction, slow) = 2/5 + 3/5 · 3/4 = 17/20, regret 1/10
    # per visit; it climbs 1/(1 − 3/5) = 5/2 times on average: the share 1/4 is the whole loss
    assert careful.state(JUNCTION).regret_exact == Fraction(1, 10)
    assert careful.state(JUNCTION).share_exact == Fraction(1, 4)


def test_a_deadline_policy_is_solved_over_the_steps_left():
    lake_env = load_builtin("frozen_lake")
    lake = property_oracle(
        lake_env.model_path,
        lake_env.worded(lake_env.properties["deadline"]),
        constants=lake_env.constants,
    )
    optimal = solve_policy(lake, complete(lake, {}, "optimal", OPTIMAL))
    assert optimal.value_loss == pytest.approx(0, abs=1e-12)
    assert optimal.state(0).value_exact == Fraction(lake.initial.value_exact)
    uniform = solve_policy(lake, complete(lake, {}, "uniform", UNIFORM))
    assert 0 < uniform.value_loss < lake.initial.value
    assert (
        uniform.value_loss_exact
        == Fraction(lake.initial.value_exact) - uniform.state(0).value_exact
    )
    assert sum(s.share_exact or 0 for s in uniform.states) == uniform.value_loss_exact


def test_the_uniform_policy_on_job_shops_hours_recomputed_apart():
    """The self-check's uniform control under a reward property: its expected hours recomputed
    by backward induction over the hours (job_shop's clock only moves on), apart from
    core/policy, and the oracle's own scheduler losing nothing."""
    env = load_builtin("job_shop")
    hours = property_oracle(
        env.model_path, env.worded(env.properties["hours"]), constants=env.constants
    )
    optimal = solve_policy(hours, complete(hours, {}, "optimal", OPTIMAL))
    assert optimal.value_loss == 0 and optimal.value_loss_exact == 0
    uniform = solve_policy(hours, complete(hours, {}, "uniform", UNIFORM))
    value = np.zeros(len(hours.states))
    for _ in range(10):  # more sweeps than hours to the deadline: the fixed point
        for state in hours.states:
            if state.is_goal:
                continue
            actions = list(state.q) or list(state.successors)
            total = 0.0
            for action in actions:
                step = state.rewards[action] + sum(
                    p * value[t] for t, p in state.successors[action].items()
                )
                total += step / len(actions)
            value[state.id] = total
    assert uniform.state(hours.model.initial).value == pytest.approx(value[hours.model.initial])
    assert uniform.value_loss == pytest.approx(value[hours.model.initial] - hours.initial.value)
    assert uniform.value_loss > 0

"""Storm's check of a user's property (``storm/properties.py``), pinned on tests/models/
rewards_four.prism, whose values are worked out by hand in its header: exact fractions and
``inf`` under the exact engine, the same within 1e-9 under interval iteration, the reward
vectors read in bulk, the target and stay sets, and one-line errors."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from oracle_helpers import model

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle.property import parse_property
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.properties import check_property, likeliest
from explaincheck.core.oracle.types import OracleRequest

FOUR = model("rewards_four")
# Storm numbers the states in the order it explores them: start, goal, junction, pit
START, GOAL, JUNCTION, PIT = 0, 1, 2, 3


def _built(exact: bool, path: str = FOUR):
    parsed = building.parse(OracleRequest(path))
    built = building.build(parsed, exact=False, state_limit=100, path=path)
    if exact:
        built = building.build(parsed, exact=True, state_limit=100, path=path)
    return parsed, built


@pytest.mark.parametrize("exact", [True, False])
def test_expected_time_with_an_infinite_state(exact):
    parsed, built = _built(exact)
    prop = parse_property('R{"time"}min=? [F "goal"]')
    found = check_property(built, parsed.program, prop, exact=exact, path=FOUR)
    hand = [Fraction(7, 2), Fraction(0), Fraction(5, 2), math.inf]
    assert np.allclose(found.values[:3], [float(v) for v in hand[:3]], atol=1e-9, rtol=0)
    assert math.isinf(found.values[PIT]) and found.infinite.tolist() == [False] * 3 + [True]
    if exact:
        assert found.exact == hand
        assert found.lower is None and "exact" in found.method
    else:
        assert found.exact is None
        # interval iteration's bounds, where Storm exposes them, bracket every value
        if found.lower is not None:
            assert np.all(found.lower <= found.values) and np.all(found.values <= found.upper)
            assert "with sound bounds" in found.method
    assert found.scheduler is not None
    assert found.scheduler[START] == 1 and found.scheduler[JUNCTION] == 1  # safe, slow
    assert found.reward_model == "time"
    # rows: start (fast, safe), goal (Storm's self-loop), junction (risky, slow), pit (wait)
    assert found.state_rewards.tolist() == [1, 0, 1, 1]
    assert found.action_rewards.tolist() == [2, 0, 0, 0, 0, 0]
    assert found.rewards.tolist() == [3, 1, 0, 1, 1, 1]
    if exact:
        assert found.rewards_exact == [Fraction(r) for r in (3, 1, 0, 1, 1, 1)]
    assert found.target.tolist() == [False, True, False, False]


@pytest.mark.parametrize("exact", [True, False])
def test_probabilities_until_and_a_deadline(exact):
    parsed, built = _built(exact)
    until = check_property(
        built, parsed.program, parse_property('Pmin=? [!"unsafe" U "goal"]'), exact=exact
    )
    # Pmin: the junction jumps (3/4 to the goal, 1/4 into the pit) rather than climbing (1)
    assert np.allclose(until.values, [0.75, 1, 0.75, 0], atol=1e-9)
    assert until.stay is not None and until.stay.tolist() == [True, True, True, False]
    assert until.lower is not None or exact  # probabilities get Storm's bounds
    deadline = check_property(
        built, parsed.program, parse_property('Pmax=? [F<=2 "goal"]'), exact=exact
    )
    # fast: 1/2 + 1/2 · 3/4 = 7/8 within two steps; the junction: climbing first and jumping
    # next, 2/5 + 3/5 · 3/4 = 17/20, beats jumping at once (3/4)
    assert np.allclose(deadline.values, [0.875, 1, 0.85, 0])
    assert deadline.scheduler is None  # a deadline's choice depends on the steps left
    if exact:
        assert deadline.exact == [Fraction(7, 8), 1, Fraction(17, 20), 0]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('R{"nope"}min=? [F "goal"]', 'has no rewards block "nope"; its rewards: time'),
        ('Pmax=? [F "nolabel"]', 'names the label "nolabel", which the model does not define'),
        ("Pmax=? [F zz=1]", "cannot read the property 'Pmax=? [F zz=1]'"),
    ],
)
def test_a_property_the_model_cannot_answer_is_one_line(text, says):
    parsed, built = _built(False)
    with pytest.raises(ModelError) as error:
        check_property(built, parsed.program, parse_property(text), exact=False, path=FOUR)
    assert says in str(error.value) and "\n" not in str(error.value)
    assert str(error.value).startswith(FOUR)


def test_a_bare_R_takes_the_only_rewards_block_and_needs_one():
    parsed, built = _built(False)
    found = check_property(built, parsed.program, parse_property('Rmin=? [F "goal"]'), exact=False)
    assert found.reward_model == "time"
    key_parsed, key_built = _built(False, model("key_bool"))
    with pytest.raises(ModelError, match="needs a rewards block; the model has none"):
        check_property(key_built, key_parsed.program, parse_property("Rmin=? [F key]"), exact=False)


def test_a_randomised_schedulers_choice_is_read_from_storms_text():
    """stormpy 2.0 gives a scheduler choice's distribution as text only ("{[1: 0], }" is
    probability 1 on choice 0, as csma2-2's Pmin until shows); the likeliest wins, ties the
    first."""
    assert likeliest("{[1: 0], }") == 0
    assert likeliest("{[0.25: 0], [0.75: 2], }") == 2
    assert likeliest("{[0.5: 1], [0.5: 0], }") == 0
    assert likeliest("{}") == 0

"""Where the graph draws a flaw's V̂ under an expected-reward property (the walk of
tests/models/rewards_four.prism, R{"time"}min=? [F "goal"]: V = 7/2 at the start, 5/2 at the
junction, ∞ in the pit, 0 at the goal): on the property's own range, in its direction (lower is
better), never clamped to 0..1 as a probability."""

from __future__ import annotations

from pathlib import Path

import pytest

from explaincheck.core.environments.registry import resolve
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.property import parse_property
from explaincheck.core.taxonomy.value_scale import merit
from explaincheck.core.workspace.presentation.flaw_pictures import flawed_picture

WALK = Path(__file__).resolve().parents[3] / "models" / "rewards_four.prism"


@pytest.fixture(scope="module")
def walk():
    env = resolve(str(WALK))
    return compute_oracle(env.request(property=parse_property('R{"time"}min=? [F "goal"]')))


def by_s(oracle, s: int) -> int:
    return next(state.id for state in oracle.states if state.valuation["s"] == s)


def test_a_picture_of_the_same_property_sits_on_its_range(walk):
    picture = flawed_picture(walk, "flaw:danger-blind")  # keeps the truth's expected times
    assert not picture.believes_other
    start, junction, pit, goal = (by_s(walk, s) for s in (0, 1, 3 - 1, 3))
    assert picture.values[junction] == pytest.approx(2.5)
    assert picture.places[junction] == pytest.approx(2.5 / 3.5)  # not clamped to 1
    assert picture.places[start] == pytest.approx(1.0)
    assert picture.places[goal] == pytest.approx(0.0)
    assert picture.places[pit] is None  # ∞: drawn apart, as the true V's
    assert picture.gaps == [0.0] * len(walk.states)  # it agrees with the truth here


def test_a_picture_believing_a_chance_is_drawn_in_the_truths_direction(walk):
    picture = flawed_picture(walk, "flaw:myopic:2")  # P(reach the goal within 2 steps)
    assert picture.believes_other
    start, junction, goal = by_s(walk, 0), by_s(walk, 1), by_s(walk, 3)
    assert picture.values[start] == pytest.approx(7 / 8)
    # a likely goal looks good: the low (good) end of an expected time's scale
    assert picture.places[start] == pytest.approx(1 - 7 / 8)
    assert picture.places[goal] == pytest.approx(0.0)
    # the gap: how far apart the two look good, in [0, 1]
    truth_start = merit(3.5, walk)
    assert truth_start == pytest.approx(0.0)  # the slowest finite state: the worst end
    assert picture.gaps[start] == pytest.approx(7 / 8)
    assert picture.gaps[junction] == pytest.approx(abs(0.85 - (1 - 2.5 / 3.5)))
    assert picture.gaps[goal] == pytest.approx(0.0)

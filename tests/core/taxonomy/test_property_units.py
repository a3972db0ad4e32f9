"""The words the windows give V of a property (``taxonomy.property_units``): the legend's row of
infinite values appears only where some state's expected reward is infinite (a legend promising
"V = ∞" over a model where every state reaches the goal for sure misleads a class)."""

from __future__ import annotations

from pathlib import Path

from explaincheck.core.oracle.compute import compute_in_process
from explaincheck.core.oracle.property import parse_property
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.taxonomy.property_units import units_of

MODELS = Path(__file__).resolve().parents[2] / "models"


def _units(model: str, text: str):
    prop = parse_property(text)
    request = OracleRequest(
        model_path=str(MODELS / model), goal_label=prop.goal_text, property=prop
    )
    return units_of(compute_in_process(request))


def test_the_infinite_row_is_shown_where_a_value_is_infinite():
    # rewards_four: the pit never reaches the goal, so its expected time is infinite
    units = _units("rewards_four.prism", 'R{"time"}min=? [F "goal"]')
    assert units.infinite_text == "V = ∞: never reaches the goal for sure"
    assert units.legend_title == "V(s): expected time, lower is better"


def test_no_infinite_row_where_every_state_reaches_the_target():
    # with the pit as a target too, every state ends for sure: every V is finite
    units = _units("rewards_four.prism", 'R{"time"}min=? [F "goal" | s=2]')
    assert units.infinite_text == ""


def test_no_infinite_row_for_a_probability():
    assert _units("rewards_four.prism", 'Pmax=? [F "goal"]').infinite_text == ""

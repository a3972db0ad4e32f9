"""Searching states by valuation: the parser's accepted forms, its one-line errors, and matches
on a real oracle (Storm's 5x5 slippery gridworld)."""

from __future__ import annotations

import pytest

from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.oracle.valuation_search import (
    Condition,
    ValuationQueryError,
    describe,
    looks_like_valuation,
    matching_states,
    parse_query,
)

VARIABLES = ("x", "y", "flag")


@pytest.mark.parametrize(
    "text",
    ["x=3, y=5", "x=3 & y=5", "x = 3 && y = 5", "x=3 and y=5", "x==3 y=5", " x=3;y=5 "],
)
def test_the_accepted_joiners_give_the_same_conditions(text):
    assert parse_query(text, VARIABLES) == (Condition("x", "=", 3), Condition("y", "=", 5))


def test_comparisons_floats_booleans_and_names_for_people():
    conditions = parse_query("row>=2, x<1.5, flag=TRUE", VARIABLES, {"y": "row"})
    assert conditions == (
        Condition("y", ">=", 2),
        Condition("x", "<", 1.5),
        Condition("flag", "=", True),
    )
    assert describe(conditions) == "y>=2, x<1.5, flag=true"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty search"),
        ("z=1", "unknown variable “z”; the variables are x, y, flag"),
        ("x=", "“x=” needs a value"),
        ("x=three", "“three” is not a number"),
        ("x=1 y", "cannot read “y”"),
        ("flag<true", "booleans compare with = or !="),
        ("=3", "cannot read “=3”"),
    ],
)
def test_bad_syntax_says_what_is_wrong_in_one_line(text, message):
    with pytest.raises(ValuationQueryError) as error:
        parse_query(text, VARIABLES)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_boolean_condition_never_matches_a_number_and_vice_versa():
    assert not Condition("x", "=", True).holds(1)
    assert not Condition("x", "=", 1).holds(True)
    assert Condition("x", "!=", False).holds(True)
    assert not Condition("x", "=", 1).holds(None)


def test_what_counts_as_a_valuation_query():
    assert looks_like_valuation("x=1")
    assert looks_like_valuation("x>1")
    assert not looks_like_valuation("42")
    assert not looks_like_valuation("goal")


def test_matches_on_a_real_gridworld(oracle, gridworld):
    result = oracle(OracleRequest(model_path=gridworld(5)))
    [corner] = matching_states(result.states, parse_query("x=4 & y=4", ("x", "y")))
    assert result.states[corner].valuation == {"x": 4, "y": 4}
    assert result.states[corner].is_goal
    row = matching_states(result.states, parse_query("y=0", ("x", "y")))
    assert sorted(result.states[s].valuation["x"] for s in row) == [0, 1, 2, 3, 4]
    assert matching_states(result.states, parse_query("y=0", ("x", "y")), limit=2) == row[:2]
    assert matching_states(result.states, parse_query("x=9", ("x", "y"))) == []

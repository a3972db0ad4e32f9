"""The one reader of ``--const`` text and its literal values (loader, builder, search, sweeps)."""

from __future__ import annotations

import pytest

from explaincheck.core.environments.loader import EnvironmentFolderError, parse_constants
from explaincheck.core.errors import ModelError
from explaincheck.core.oracle.constants_text import (
    constant_parts,
    literal,
    literal_text,
    without_constant,
)
from explaincheck.core.oracle.storm.building import _constant_names
from explaincheck.core.oracle.valuation_search import ValuationQueryError, parse_query


def test_parts_keep_order_skip_blanks_and_leave_expressions_as_text():
    assert constant_parts(" N = 4,,p=1/3, HOLE=true ") == [
        ("N", "4"),
        ("p", "1/3"),
        ("HOLE", "true"),
    ]
    with pytest.raises(ValueError, match="'HOLE': expected NAME=VALUE"):
        constant_parts("N=4,HOLE")


def test_without_constant_drops_only_that_name():
    assert without_constant("N=4, NN=5,p=0.5", "N") == "NN=5,p=0.5"
    assert without_constant("p=0.5", "p") == ""


@pytest.mark.parametrize(
    ("raw", "value"), [("TRUE", True), ("false", False), ("4", 4), ("-2", -2), ("0.5", 0.5)]
)
def test_literals_are_typed_like_prism_and_read_back(raw, value):
    found = literal(raw)
    assert found == value and type(found) is type(value)
    assert literal(literal_text(found)) == found


def test_every_reader_refuses_alike():
    with pytest.raises(ValueError):
        literal("1/3")
    with pytest.raises(EnvironmentFolderError, match="expected a number or true/false"):
        parse_constants("N=four")
    with pytest.raises(EnvironmentFolderError, match="'N': expected NAME=VALUE"):
        parse_constants("N")
    with pytest.raises(ModelError, match="'N': expected NAME=VALUE"):
        _constant_names("p=0.5,N")
    assert parse_constants("N=4,HOLE=True") == {"N": 4, "HOLE": True}
    assert [c.value for c in parse_query("x=3, lit=true", ["x", "lit"])] == [3, True]
    with pytest.raises(ValuationQueryError, match="booleans compare with = or !="):
        parse_query("lit>true", ["lit"])
    with pytest.raises(ValuationQueryError, match="is not a number or true/false"):
        parse_query("x=three", ["x"])

"""A glance at one state of a large (columnar) result (the summary's ``peek``) reads that state
from the arrays in place: the same facts as the full conversion, without converting every
column to Python lists (0.5 s of CPU and 300 MB at 10^6 states)."""

from __future__ import annotations

import dataclasses
import math

import pytest
from oracle_helpers import gridworld_text, model

from explaincheck.core.oracle import compute_in_process
from explaincheck.core.oracle.columnar import ColumnarStates
from explaincheck.core.oracle.property import parse_property
from explaincheck.core.oracle.types import OracleRequest


def _without_centrality(facts):
    assert math.isnan(facts.centrality)
    return dataclasses.replace(facts, centrality=0.0)


def _columnar(path: str, method: str, prop: str | None = None) -> ColumnarStates:
    request = OracleRequest(
        path,
        constants="N=6" if path.endswith("gambler.prism") else "",
        method=method,
        centrality=False,
        property=parse_property(prop) if prop else None,
    )
    states = compute_in_process(request, columnar_from=0).states
    assert isinstance(states, ColumnarStates)
    return states


@pytest.mark.parametrize(
    ("name", "method", "prop"),
    [
        ("gambler", "exact", None),  # exact columns: fractions as text
        ("rewards_four", "exact", 'R{"time"}min=? [F "goal"]'),  # rewards, infinite V
        ("ledge", "verified", None),  # two variables, labels, intervals
        ("key_bool", "exact", None),  # a boolean variable
    ],
)
def test_a_glance_gives_the_facts_of_the_full_conversion(name, method, prop):
    glanced = _columnar(model(name), method, prop)
    expected = _columnar(model(name), method, prop)
    for state in range(len(glanced)):
        assert _without_centrality(glanced.glance(state)) == _without_centrality(
            expected._make(state, math.nan)
        )
    assert "_lists" not in glanced.__dict__  # nothing was converted whole


def test_a_glance_on_a_grid_converts_no_column(tmp_path):
    path = tmp_path / "grid.prism"
    path.write_text(gridworld_text(12))
    states = _columnar(str(path), "verified")
    first, last = states.glance(0), states.glance(len(states) - 1)
    assert "_lists" not in states.__dict__
    assert first.labels == states.label_tuples()[0]
    assert last.valuation == states.facts(len(states) - 1).valuation
    assert last.best == states.facts(len(states) - 1).best

"""The Storm adapter's conversions, pinned on one small real model (tests/models/key_bool.prism):
valuations of int and bool variables, choice labels, BitVectors read per position, and exact
Rational and float numbers. Each expectation was worked out by hand from the model's text."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from oracle_helpers import model

from explaincheck.core.oracle.arrays import choice_arrays
from explaincheck.core.oracle.certificate import storm_round_off
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.bulk import bits_to_array, read_bulk
from explaincheck.core.oracle.storm.checking import (
    SOUND_ITERATIONS,
    exact_check,
    sound_bounds,
    storm_fraction,
)
from explaincheck.core.oracle.storm.structure import read_structure
from explaincheck.core.oracle.types import OracleRequest

KEY_BOOL = model("key_bool")


def _built(exact: bool):
    parsed = building.parse(OracleRequest(KEY_BOOL))
    return parsed, building.build(parsed, exact=exact, state_limit=100, path=KEY_BOOL)


def _state(structure, **valuation):
    found = [
        s
        for s, v in enumerate(structure.valuations)
        if all(v[k] == x for k, x in valuation.items())
    ]
    assert len(found) == 1, valuation
    return found[0]


def test_valuations_keep_each_variable_type() -> None:
    _, storm_model = _built(exact=False)
    structure = read_structure(storm_model, exact=False)
    initial = structure.valuations[structure.initial]
    assert initial == {"key": False, "r": 1, "x": 0}
    assert type(initial["key"]) is bool and type(initial["x"]) is int
    # reachable: x=0; x=1 with (key, r) in {(T,1), (F,0)}; x=2 with {(F,1),(T,0),(F,0)};
    # x=3 with the successes of the last step plus the failure state (F, r) for r in {1, 0}
    assert sorted((v["x"], v["key"], v["r"]) for v in structure.valuations) == sorted(
        [
            (0, False, 1),
            (1, True, 1),
            (1, False, 0),
            (2, False, 1),
            (2, True, 0),
            (2, False, 0),
            (3, True, 1),
            (3, True, 0),
            (3, False, 0),
            (3, False, 1),
        ]
    )


def test_bulk_columns_equal_the_per_state_valuations() -> None:
    """A bool column is one value per state (a BitVector iterates its set bits' indices, which
    made the column shorter than the model and its values wrong)."""
    _, storm_model = _built(exact=False)
    structure = read_structure(storm_model, exact=False)
    bulk = read_bulk(storm_model)
    assert bulk.valuations["key"].dtype == bool
    assert bulk.valuations["x"].dtype == np.int64
    for name in ("key", "r", "x"):
        column = bulk.valuations[name]
        assert len(column) == structure.size
        assert column.tolist() == [v[name] for v in structure.valuations]


def test_bitvectors_are_read_per_position() -> None:
    _, storm_model = _built(exact=False)
    structure = read_structure(storm_model, exact=False)
    goal = bits_to_array(storm_model.labeling.get_states("goal"), storm_model.nr_states)
    expected = [v["x"] == 3 and v["key"] for v in structure.valuations]
    assert goal.tolist() == expected and sum(expected) == 2


def test_choice_labels() -> None:
    _, storm_model = _built(exact=False)
    structure = read_structure(storm_model, exact=False)
    bulk = read_bulk(storm_model)
    start = structure.initial
    assert [c.action for c in structure.choices[start]] == ["a", "b"]
    rows = range(bulk.arrays.first_row[start], bulk.arrays.first_row[start + 1])
    assert [bulk.action_names[bulk.action_code[r]] for r in rows] == ["a", "b"]
    end = _state(structure, x=3, key=True, r=0)  # Storm's deadlock self-loop: no label
    assert [c.action for c in structure.choices[end]] == [None]


@pytest.mark.parametrize("exact", [True, False])
def test_probabilities_exact_and_float(exact: bool) -> None:
    _, storm_model = _built(exact=exact)
    structure = read_structure(storm_model, exact=exact)
    a, b = structure.choices[structure.initial]
    success = _state(structure, x=1, key=True, r=1)
    if exact:
        assert a.probabilities[success] == Fraction(3, 10)
        assert type(a.probabilities[success]) is Fraction
        assert sorted(b.probabilities.values()) == [Fraction(2, 5), Fraction(3, 5)]
    else:
        assert a.probabilities[success] == 0.3 and type(a.probabilities[success]) is float
        assert sorted(b.probabilities.values()) == pytest.approx([0.4, 0.6], abs=1e-15)


def test_exact_values_are_fractions() -> None:
    parsed, storm_model = _built(exact=True)
    structure = read_structure(storm_model, exact=True)
    values, scheduler = exact_check(
        storm_model, parsed.properties[0], structure.size, scheduler=True
    )
    assert values[structure.initial] == Fraction(27, 250)
    assert scheduler is not None and len(scheduler) == structure.size
    assert storm_fraction("2511/8000") == Fraction(2511, 8000)
    assert storm_fraction(0.5) == Fraction(1, 2)


def test_only_the_adapter_imports_stormpy() -> None:
    package = Path(building.__file__).resolve().parents[2]  # core/
    importers = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "import stormpy" in path.read_text() or "from stormpy" in path.read_text()
    ]
    assert importers and all(name.startswith("oracle/storm/") for name in importers), importers


def test_sound_bounds_bracket_the_exact_values() -> None:
    """Storm's interval iteration read as two vectors: converged on this small model, every
    exact value between its bounds once widened by their round-off, and the most iterations
    allowed on a model this small."""
    parsed, float_model = _built(exact=False)
    _, exact_model = _built(exact=True)
    exact, _ = exact_check(exact_model, parsed.properties[0], exact_model.nr_states)
    found = sound_bounds(float_model, parsed.properties[0])
    assert found is not None and found.converged
    assert found.iterations == SOUND_ITERATIONS[1]
    assert len(found.lower) == len(found.upper) == float_model.nr_states
    widen = storm_round_off(
        choice_arrays(read_structure(float_model, exact=False)), found.iterations
    )
    assert 0 < widen < 1e-9
    for low, high, truth in zip(found.lower, found.upper, exact, strict=True):
        assert Fraction(low - widen) <= truth <= Fraction(high + widen)
        assert high - low <= 2e-9

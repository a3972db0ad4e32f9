"""The PRISM benchmark suite's reward and bounded properties on the instances stormpy's wheel
ships (``stormpy/examples/files/mdp``: consensus coin2-2, csma2-2, firewire3-0.5; found at run
time, never copied): V(s0) of the property, read through ``storm/properties.py``
(and, for a deadline, the product of ``property_values``), equals stormpy's own check of the
same file and property built by stormpy alone.

The properties are the suite's (models/mdps/*/*.pctl) with the wheel's label names:
firewire3-0.5 calls the suite's "done" "elected". The wheel's wlan0-2-2 has no rewards block
and reaches no station's end; the suite's wlan0.nm (cost, time, collisions, a deadline) and
zeroconf (no reward or bounded property) are measured by ``benchmarks/suite_properties.py``
(docs/method.md §14 has the figures)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from explaincheck.core.oracle import property_values as pv
from explaincheck.core.oracle.arrays import choice_arrays
from explaincheck.core.oracle.property import BOUNDED, parse_property
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.properties import check_property
from explaincheck.core.oracle.storm.structure import read_structure
from explaincheck.core.oracle.types import OracleRequest

CASES = [
    ("coin2-2.nm", 'R{"steps"}min=? [F "finished"]'),
    ("coin2-2.nm", 'R{"steps"}max=? [F "finished"]'),
    ("coin2-2.nm", 'Pmax=? [F<=20 "finished"]'),
    ("csma2-2.nm", 'R{"time"}min=? [F "all_delivered"]'),
    ("csma2-2.nm", 'R{"time"}max=? [F "all_delivered"]'),
    ("csma2-2.nm", 'Pmin=? [!"collision_max_backoff" U "all_delivered"]'),
    ("csma2-2.nm", 'Pmin=? [F<=30 "all_delivered"]'),
    ("firewire3-0.5.nm", 'R{"time"}min=? [F "elected"]'),
    ("firewire3-0.5.nm", 'R{"time"}max=? [F "elected"]'),
    ("firewire3-0.5.nm", 'R{"time_sending"}max=? [F "elected"]'),
    ("coin2-2.nm", 'Pmin=? [F<=30 "finished"]'),
]


def wheel_file(name: str) -> Path:
    import stormpy

    return Path(stormpy.__file__).parent / "examples" / "files" / "mdp" / name


def storm_alone(path: Path, text: str) -> float:
    """V(s0) as stormpy alone gives it: its own build and check of the file and property."""
    import stormpy

    program = stormpy.parse_prism_program(str(path))
    props = stormpy.parse_properties(text, program)
    built = stormpy.build_model(program, props)
    result = stormpy.model_checking(built, props[0])
    return float(result.get_value(built.initial_states[0]))


@pytest.mark.parametrize(("name", "text"), CASES, ids=[f"{n}:{t}" for n, t in CASES])
def test_v0_of_the_suites_property_equals_stormpys(name, text):
    path = wheel_file(name)
    prop = parse_property(text)
    request = OracleRequest(str(path), goal_label=prop.goal_text, unsafe_label="no_unsafe")
    parsed = building.parse(request)
    built = building.build(parsed, exact=False, state_limit=100_000, path=str(path))
    checked = check_property(built, parsed.program, prop, exact=False, path=str(path))
    structure = read_structure(built, exact=False)
    ours = float(checked.values[structure.initial])
    if prop.kind == BOUNDED:  # the product with the steps left gives the same V(s0, K)
        assert prop.bound is not None
        arrays = choice_arrays(structure)
        product = pv.bounded_product(arrays, checked.target, prop.bound, structure.initial)
        values, _ = pv.bounded_values(product, prop.direction)
        assert values[0] == pytest.approx(ours, abs=1e-9)
    expected = storm_alone(path, text)
    if math.isinf(expected):
        assert math.isinf(ours)
    else:
        assert ours == pytest.approx(expected, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize(("name", "text"), CASES, ids=[f"pipeline {n}:{t}" for n, t in CASES])
def test_the_one_pipeline_gives_stormpys_value(name, text):
    """The same through ``compute.compute_in_process`` (the oracle every command uses): exact
    rationals up to 1,000 states, Storm's certified bounds above (csma2-2, firewire3-0.5), a
    deadline over the product with the steps left."""
    from explaincheck.core.oracle.compute import compute_in_process

    path = wheel_file(name)
    prop = parse_property(text)
    request = OracleRequest(
        str(path), goal_label=prop.goal_text, unsafe_label="no_unsafe", property=prop
    )
    result = compute_in_process(request, columnar_from=10**9)
    found = result.states[result.model.initial]
    expected = storm_alone(path, text)
    assert math.isclose(found.value, expected, rel_tol=1e-6, abs_tol=1e-9)
    if found.value_interval is not None:  # the verified method: Storm's bounds, certified
        assert found.value_interval[0] <= found.value <= found.value_interval[1]
        assert result.certificate.max_width < 1e-9

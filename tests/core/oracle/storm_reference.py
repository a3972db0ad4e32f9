"""Storm's own answer, for comparing the oracle with: ``Pmax=? [F goal]`` per state by raw stormpy
(its default, sound engine), keyed by valuation. Nothing here goes through explaincheck."""

from __future__ import annotations

import json


def storm_pmax(path: str, constants: str = "", goal: str = '"goal"') -> dict[tuple, float]:
    """Pmax [F goal] of every state Storm builds for that property, by sorted valuation.
    ``goal`` is a state formula as PRISM writes it ('"goal"', '"a" & x=1')."""
    import stormpy

    program = stormpy.parse_prism_program(path)
    if constants:
        program, _ = stormpy.instantiate_constants(program, constants, [])
    properties = stormpy.parse_properties(f"Pmax=? [F ({goal})]", program)
    model = stormpy.build_model(program, properties)
    options = stormpy.BuilderOptions(properties, build_full=True)
    options.set_exploration_checks(False)
    model = stormpy.build_model(program, options=options)
    result = stormpy.model_checking(model, properties[0])
    return {
        valuation_key(json.loads(str(model.state_valuations.to_json(s)))): float(
            result.get_value(s)
        )
        for s in range(model.nr_states)
    }


def valuation_key(valuation: dict) -> tuple:
    return tuple(sorted(valuation.items()))


def differences(oracle_json: dict, storm: dict[tuple, float], tolerance: float = 1e-6) -> list:
    """States whose oracle V differs from Storm's by more than ``tolerance`` (or that the
    oracle lacks), as (valuation, oracle V, Storm's)."""
    ours = {valuation_key(s["valuation"]): s["V"] for s in oracle_json["states"]}
    return [
        (key, ours.get(key), value)
        for key, value in storm.items()
        if key not in ours or abs(ours[key] - value) > tolerance
    ]

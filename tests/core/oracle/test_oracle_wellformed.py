"""Ill-formed PRISM models are refused in one line naming the command and its line:col, in the
exact and the float build, and no built-in or test model is refused by mistake."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.environment_expectations import expected

from explaincheck.core.environments.registry import list_builtin
from explaincheck.core.errors import ModelError
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.wellformed import command_positions, is_rounding
from explaincheck.core.oracle.types import OracleRequest

MODELS = Path(__file__).parents[2] / "models"
ILL = MODELS / "ill_formed"

# file -> (line:col of the command, words the refusal must say)
REFUSED = {
    "sum_high.prism": ("5:3", "sum to 9/5 (= 1.8), not 1"),
    "sum_low.prism": ("5:3", "sum to 7/10 (= 0.7), not 1"),
    "out_of_range.prism": ("5:3", "sets x to 7, outside its range"),
    "sum_by_state.prism": ("5:3", "sum to 1/2 (= 0.5) in some state, not 1"),
    "renamed_out_of_range.prism": ("6:3", "sets x to 4, outside its range"),
}


def _build(path: Path, *, exact: bool, constants: str = ""):
    parsed = building.parse(OracleRequest(model_path=str(path), constants=constants))
    return building.build(parsed, exact=exact, state_limit=10**6, path=str(path))


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_an_ill_formed_command_is_refused_at_its_line(name, exact):
    place, words = REFUSED[name]
    with pytest.raises(ModelError) as caught:
        _build(ILL / name, exact=exact)
    message = str(caught.value)
    assert message.startswith(f"{ILL / name}:{place}: "), message
    assert words in message
    assert "\n" not in message
    line, column = (int(part) for part in place.split(":"))
    assert (caught.value.line, caught.value.column) == (line, column)


def _builtin_cases():
    """Each environment with its defaults, and with the further constants its own
    ``expect.toml`` names (``also_builds``: e.g. transporter at p_slip=0.15)."""
    cases = []
    for env in list_builtin():
        cases.append(pytest.param(env.model_path, env.constants, id=env.id))
        for i, constants in enumerate(expected(env.id).also_builds, 1):
            cases.append(pytest.param(env.model_path, constants, id=f"{env.id}-also{i}"))
    return cases


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
@pytest.mark.parametrize(("model", "constants"), _builtin_cases())
def test_no_built_in_model_is_refused(model, constants, exact):
    # (transporter's 4/5 + 1/10 + 1/10 is not 1 in doubles: Storm's float check alone refuses it)
    assert _build(Path(model), exact=exact, constants=constants).nr_states > 0


WELL_FORMED_TEST_MODELS = sorted(
    path
    for path in MODELS.glob("*.prism")
    if path.name not in ("syntax_error.prism", "pomdp.prism", "ctmc.prism", "no_goal.prism")
)


CONSTANTS = {
    "gambler.prism": "N=6",
    "factors.prism": "p=0.1,r=0.2",
    "bypass.prism": "WIDE=1",
    "corridor.prism": "TARGET=4",
    "flip.prism": "p=0.3",
    "flip_guard.prism": "p=0.3",
    "flip_int.prism": "K=3",
    "all_zero.prism": "g=1,a=1,b=1",
    "gate.prism": "g=1",
    "prism_idioms.prism": "N=2",
    "two_gambles.prism": "p=0.5",
    "slip.prism": "slip=0.2",
    "slip_lake.prism": "slip=0.2",
    "tie_at_bounds.prism": "slip=0.2",
}


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
@pytest.mark.parametrize("path", WELL_FORMED_TEST_MODELS, ids=lambda p: p.stem)
def test_no_test_model_is_refused(path, exact):
    model = _build(path, exact=exact, constants=CONSTANTS.get(path.name, ""))
    assert model.nr_states > 0


def test_a_ctmc_is_refused_without_storms_flag():
    with pytest.raises(ModelError) as caught:
        building.parse(OracleRequest(model_path=str(MODELS / "ctmc.prism")))
    assert "model type CTMC is not supported" in str(caught.value)
    assert "-pc" not in str(caught.value)


def test_commands_are_placed_past_comments_and_declarations():
    text = (
        "mdp\n"
        "module m // [not] a command;\n"
        "  x : [0..2] init 0;\n"
        "  [a] x=0 -> (x'=1);\n"
        "    [] x=1 -> (x'=2);\n"
        "endmodule\n"
        "module n = m [x=y] endmodule\n"
    )
    assert command_positions(text) == {"m": [(4, 3), (5, 5)], "n": [(4, 3), (5, 5)]}


def test_rounding_is_told_apart_from_a_fault():
    command = "Probabilities do not sum to one for command '[a] true -> 1:(x'=0);'"
    assert is_rounding(f"{command} (actually sum to 1).")
    assert is_rounding(f"{command} (actually sum to 0.99999999999999989).")
    assert not is_rounding(f"{command} (actually sum to 0.7).")

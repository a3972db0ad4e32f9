"""The oracle on models written the way PRISM users write them (issue 33): each checked through
``explaincheck oracle --json`` against raw stormpy's ``Pmax=? [F goal]`` per state."""

from __future__ import annotations

import json
import os
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from oracle_helpers import MODELS, explaincheck_command, model
from storm_reference import differences, storm_pmax

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.storm import build_budget, building
from explaincheck.core.oracle.types import OracleRequest


def oracle_json(*arguments: str) -> dict:
    done = subprocess.run(
        [*explaincheck_command(), "oracle", *arguments, "--json", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def initial(result: dict) -> dict:
    return result["states"][result["model"]["initial"]]


def key_grid(n: int) -> str:
    """An n x n grid with a key to pick up at the far corner of the first row and a lake across
    the middle; the goal needs the key. 2 n^2 states, a bool state variable among them."""
    lake = f"y = {n // 2} & x > 0 & x < {n - 1}"
    top = n - 1
    return f"""mdp
module grid
  x : [0..{n - 1}] init 0;
  y : [0..{n - 1}] init 0;
  key : bool init false;
  [e] !({lake}) & x < {n - 1} -> 0.8 : (x'=x+1) + 0.1 : (y'=max(y-1,0)) + 0.1 : (y'=min(y+1,{top}));
  [w] !({lake}) & x > 0 -> 0.8 : (x'=x-1) + 0.1 : (y'=max(y-1,0)) + 0.1 : (y'=min(y+1,{top}));
  [n] !({lake}) & y < {n - 1} -> 0.8 : (y'=y+1) + 0.1 : (x'=max(x-1,0)) + 0.1 : (x'=min(x+1,{top}));
  [s] !({lake}) & y > 0 -> 0.8 : (y'=y-1) + 0.1 : (x'=max(x-1,0)) + 0.1 : (x'=min(x+1,{top}));
  [pick] x = {n - 1} & y = 0 & !key -> 1 : (key'=true);
endmodule
label "goal" = x = {n - 1} & y = {n - 1} & key;
label "unsafe" = {lake};
"""


# ------------------------------------------------------------------ defects 1-3


def test_a_global_variable_bounded_by_a_defined_constant_checks():
    path = model("global_bound")
    result = oracle_json(path)
    assert result["model"]["states"] == 7
    assert initial(result)["V"] == 1.0
    assert differences(result, storm_pmax(path)) == []
    parsed = building.parse(OracleRequest(path))
    assert build_budget.range_bound(parsed.program) == 7  # c in [0..6]: no evaluation crash


def test_stormpys_coin2_2_checks():
    path = str(Path(__import__("stormpy").__file__).parent / "examples/files/mdp/coin2-2.nm")
    result = oracle_json(path, "--goal", "finished")
    assert result["model"]["states"] == 272
    assert differences(result, storm_pmax(path, goal='"finished"')) == []


@pytest.mark.parametrize("n, columnar", [(60, True), (20, False)])
def test_a_boolean_state_variable_above_and_below_the_columnar_threshold(tmp_path, n, columnar):
    path = tmp_path / f"key{n}.prism"
    path.write_text(key_grid(n))
    result = oracle_json(str(path), "--method", "verified")
    assert result["model"]["states"] == 2 * n * n  # 7,200 at n = 60, as in issue 33.2
    keys = [s["valuation"]["key"] for s in result["states"]]
    assert all(type(k) is bool for k in keys) and keys.count(True) == keys.count(False)
    assert (result["model"]["states"] >= 5_000) is columnar
    assert differences(result, storm_pmax(str(path))) == []
    assert 0.0 < initial(result)["V"] < 1.0


def test_a_rounding_false_alarm_costs_no_rational_build(tmp_path, monkeypatch):
    """0.8 + 0.1 + 0.1 is not 1 in doubles; above the re-check size the model is built in floats
    again without checks, its rows summed, and no Rational build runs (issue 33.3)."""
    path = tmp_path / "key12.prism"
    path.write_text(key_grid(12))
    monkeypatch.setattr(building, "RATIONAL_RECHECK_UP_TO", 10)
    builds: list[tuple[bool, bool]] = []
    real = building._build

    def counted(parsed, *, exact, checks, path, state_limit):
        builds.append((exact, checks))
        return real(parsed, exact=exact, checks=checks, path=path, state_limit=state_limit)

    monkeypatch.setattr(building, "_build", counted)
    parsed = building.parse(OracleRequest(str(path)))
    storm_model = building.build(parsed, exact=False, state_limit=10**6, path=str(path))
    assert builds == [(False, True), (False, False)]
    assert storm_model.nr_states == 2 * 12 * 12  # every cell with and without the key
    assert any("up to rounding" in note for note in parsed.notes)


def test_a_state_dependent_sum_off_one_is_still_refused(tmp_path):
    path = tmp_path / "bad.prism"
    path.write_text(
        "mdp\nmodule m\n  x : [0..3] init 0;\n"
        "  [a] x < 3 -> 0.8 : (x'=x+1) + 0.1 : (x'=x) + x/10 : (x'=0);\nendmodule\n"
        'label "goal" = x = 3;\n'
    )
    with pytest.raises(ModelError, match="sum to"):
        compute_oracle(OracleRequest(str(path)), use_cache=False)


# ------------------------------------------------------------------ goals as expressions


def test_a_goal_combining_labels_gives_the_consensus_value():
    """The PRISM benchmark suite's consensus model: V(s0) = 17/33, as Storm's own
    Pmax=? [F "finished" & "all_coins_equal_1"]."""
    path = str(Path(__import__("stormpy").__file__).parent / "examples/files/mdp/coin2.nm")
    goal = '"finished" & "all_coins_equal_1"'
    result = oracle_json(path, "--const", "K=8", "--goal", goal, "--method", "exact")
    assert Fraction(initial(result)["V_exact"]) == Fraction(17, 33)
    assert differences(result, storm_pmax(path, "K=8", goal)) == []
    verified = oracle_json(path, "--const", "K=8", "--goal", goal, "--method", "verified")
    assert abs(initial(verified)["V"] - 17 / 33) < 1e-9


def test_own_model_of_prism_idioms():
    path = model("prism_idioms")
    by_label = oracle_json(path, "--const", "N=2")
    combined = oracle_json(path, "--const", "N=2", "--goal", '"left_done" & "right_done"')
    by_variables = oracle_json(path, "--const", "N=2", "--goal", "l=N & r=N")
    for result in (by_label, combined, by_variables):
        assert Fraction(initial(result)["V_exact"]) == Fraction(1701, 2048)
        assert result["model"]["states"] == 115
    assert differences(combined, storm_pmax(path, "N=2", '"left_done" & "right_done"')) == []
    assert type(initial(combined)["valuation"]["lbusy"]) is bool


@pytest.mark.parametrize(
    "goal, message",
    [
        ("l = N &", "1:8: syntax error"),
        ('"nowhere" & l = 1', 'names the label "nowhere", which is not defined'),
        ("nosuch", "the goal label 'nosuch' is not defined"),
        ("Pmax=? [F l = 1]", "a boolean expression is needed"),
    ],
)
def test_a_bad_goal_is_one_line(goal, message):
    done = subprocess.run(
        [*explaincheck_command(), "oracle", model("prism_idioms"), "--const=N=2", f"--goal={goal}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_an_unsafe_expression_gives_the_danger():
    path = model("prism_idioms")
    result = oracle_json(path, "--const", "N=2", "--unsafe", "turns = TOP")
    assert result["model"]["danger"] is True or initial(result)["D"] is not None
    # every step costs a turn and skipping is free, so the minimum avoids running out: D = 0,
    # but a state with turns = TOP is unsafe itself (D = 1)
    at_top = [s for s in result["states"] if s["valuation"]["turns"] == 6]
    assert at_top and all(s["D"] == 1.0 for s in at_top)
    assert initial(result)["D"] == 0.0


def test_models_folder_is_where_the_helpers_look():
    assert (MODELS / "key_bool.prism").exists()


@pytest.mark.parametrize("method", ["exact", "verified"])
def test_several_initial_states_are_said_not_dropped(method):
    """An ``init ... endinit`` block with two initial states: the oracle keeps the first
    (x=0) and its warnings say so, on both the exact and the verified path."""
    result = oracle_json(model("two_initial"), "--method", method)
    assert result["model"]["initial"] == 0
    assert initial(result)["valuation"] == {"x": 0}
    (said,) = [w for w in result["model"]["warnings"] if "initial states" in w]
    assert "2 initial states (0, 1)" in said and "uses state 0" in said
    assert result["model"]["bottlenecks"] == [1, 2]

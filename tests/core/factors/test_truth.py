"""Necessity, strength and sufficiency on tests/models/factors.prism, checked by hand.

At s = 1 the agent picks short (goal w.p. 1 - p - w*r) or long (goal w.p. L = 0.6), with
p = 0.3 and r = 0.5. Calm (w = 0): Q = (0.7, 0.6), A* = {short}, margin m = 0.1.
Windy (w = 1): Q = (0.2, 0.6), A* = {long}, m = 0.4 (margin of long over short).
- p -> 0: calm Q(short) = 1 (m 0.4: unchanged A*, strength 0.3); windy Q(short) = 0.5
  (m 0.1: unchanged, strength 0.3).
- r -> 0: calm: no change (strength 0); windy Q(short) = 0.7 > 0.6: A* flips, m = -0.1,
  strength 0.5.
- w (state factor): the other wind's state flips A* both ways; calm: m of {short} at windy =
  0.2 - 0.6 = -0.4, strength 0.5; windy: m of {long} at calm = 0.6 - 0.7 = -0.1, strength 0.5.
Sufficiency (keep f, neutralise the other model factors):
- calm: p kept, r = 0: Q(short) 0.7 > 0.6 kept; r kept, p = 0: 1 > 0.6 kept; w kept, all
  neutral: 1 > 0.6 kept. All three sufficient.
- windy: p kept, r = 0: 0.7 > 0.6 flips: not sufficient; r kept, p = 0: 0.5 < 0.6 kept:
  sufficient; w kept, all neutral: 1 > 0.6 flips: not sufficient.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explaincheck.core.environments.generic import generic_environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.factors.declare import automatic_factors, declared_factors
from explaincheck.core.factors.intervene import compute_factor_truth, intervened_request
from explaincheck.core.factors.types import MODEL, STATE, Factor
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest

MODEL_PATH = str(Path(__file__).parents[2] / "models" / "factors.prism")
BASE = OracleRequest(MODEL_PATH, constants="p=0.3,r=0.5")
HAND = (
    Factor("p", "the risk of the short path", MODEL, constants={"p": 0}),
    Factor("r", "the extra risk in the wind", MODEL, constants={"r": 0}),
    Factor("w", "the wind", STATE, variable="w"),
)


@pytest.fixture(scope="module")
def factual():
    return compute_oracle(BASE)


@pytest.fixture(scope="module")
def truth(factual):
    return compute_factor_truth(HAND, factual, BASE)


def state_id(oracle, s, w):
    return next(x.id for x in oracle.states if x.valuation == {"s": s, "w": w})


def test_only_the_two_choice_states_have_a_decision_to_explain(factual, truth):
    assert sorted(truth.states) == sorted([state_id(factual, 1, 0), state_id(factual, 1, 1)])


def test_calm_state_by_hand(factual, truth):
    calm = truth.states[state_id(factual, 1, 0)]
    assert calm.margin == pytest.approx(0.1)
    p, r, w = (calm.effect(f) for f in "prw")
    assert (p.necessary, r.necessary, w.necessary) == (False, False, True)
    assert (p.strength, r.strength, w.strength) == pytest.approx((0.3, 0.0, 0.5))
    assert (p.sufficient, r.sufficient, w.sufficient) == (True, True, True)
    assert w.best_after == ("long",)
    assert calm.influence_order() == ("w", "p", "r")


def test_windy_state_by_hand(factual, truth):
    windy = truth.states[state_id(factual, 1, 1)]
    assert windy.margin == pytest.approx(0.4)
    p, r, w = (windy.effect(f) for f in "prw")
    assert (p.necessary, r.necessary, w.necessary) == (False, True, True)
    assert (p.strength, r.strength, w.strength) == pytest.approx((0.3, 0.5, 0.5))
    assert (p.sufficient, r.sufficient, w.sufficient) == (False, True, False)
    assert r.best_after == ("short",)
    assert windy.influence_order() == ("r", "w", "p")  # r, w tie: declaration order


def test_each_intervention_is_one_cached_oracle(truth):
    assert set(truth.intervened) == {
        "p: neutral",
        "r: neutral",
        "p: others neutral",
        "r: others neutral",
        "all neutral",
    }
    assert truth.intervened["p: others neutral"] == truth.intervened["r: neutral"]
    assert truth.dropped == {}


def test_automatic_factors_of_a_bare_prism_file(factual):
    environment = generic_environment(MODEL_PATH, constants="p=0.3,r=0.5")
    found = automatic_factors(environment, factual.model.variables)
    assert [(f.id, f.kind) for f in found] == [
        ("s", STATE),
        ("w", STATE),
        ("p", MODEL),
        ("r", MODEL),
        ("L", MODEL),
    ]
    assert found[4].constants == {"L": 0.0}
    assert declared_factors(environment) == ()


def test_a_constant_the_file_defines_is_neutralised_through_a_stripped_copy(factual):
    request = intervened_request(BASE, {"L": 0.0})
    assert request.model_path != MODEL_PATH
    assert "const double L;" in Path(request.model_path).read_text()
    environment = generic_environment(MODEL_PATH, constants="p=0.3,r=0.5")
    truth = compute_factor_truth(
        automatic_factors(environment, factual.model.variables), factual, BASE
    )
    calm = truth.states[state_id(factual, 1, 0)]
    # L -> 0: long never arrives, calm keeps short with margin 0.7: strength 0.6.
    assert calm.effect("L").strength == pytest.approx(0.6)
    assert not calm.effect("L").necessary
    # s has no alternative with the same actions at s = 1: it cannot move the decision.
    assert (calm.effect("s").necessary, calm.effect("s").strength) == (False, 0.0)


def test_a_factor_whose_model_does_not_build_is_dropped_with_its_reason(factual):
    broken = Factor("big", "a constant the model lacks", MODEL, constants={"nope": 1})
    truth = compute_factor_truth((*HAND, broken), factual, BASE)
    assert "big" in truth.dropped
    assert [f.id for f in truth.factors] == ["p", "r", "w"]


def test_bad_declarations_are_one_line_errors(tmp_path):
    folder = tmp_path / "env"
    folder.mkdir()
    (folder / "model.prism").write_text(Path(MODEL_PATH).read_text())
    (folder / "environment.toml").write_text(
        'title = "t"\ntask = "t"\nstate = "s={s}"\n[[factors]]\nid = "x"\nwords = "x"\n'
    )
    environment = generic_environment(MODEL_PATH)
    environment = environment.__class__(**{**environment.__dict__, "folder": str(folder)})
    with pytest.raises(ExplaincheckError, match="exactly one of 'constants' or 'variable'"):
        declared_factors(environment)


def test_metrics_and_delta_of_the_worked_example(factual, truth):
    """docs/method.md, "Why-questions (factors)": the windy state's numbers."""
    from explaincheck.core.taxonomy.factors import Factors, factor_metrics

    windy = truth.states[state_id(factual, 1, 1)]
    expected = {
        "necessary": [e.factor for e in windy.effects if e.necessary],
        "strength": {e.factor: e.strength for e in windy.effects},
    }
    right = factor_metrics(["r", "w", "p"], expected)
    assert right["precision"] == pytest.approx(2 / 3) and right["best_precision"] == 2 / 3
    assert right["spearman"] == pytest.approx(0.866, abs=1e-3)  # r and w tie
    assert not right["inverted"] and not right["uncited_outranks"]
    wrong = factor_metrics(["p", "r", "w"], expected)
    assert wrong["spearman"] == pytest.approx(-0.866, abs=1e-3) and wrong["inverted"]
    assert Factors().state_delta(windy) == pytest.approx(0.8)  # 1 - (0.5 - 0.3)

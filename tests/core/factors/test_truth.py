"""Necessity, strength and sufficiency on tests/models/factors.prism, checked by hand.

At s = 1 the agent picks short (goal w.p. 1 - p - w*r) or long (goal w.p. L = 0.6), with
p = 0.3 and r = 0.5. Calm (w = 0): Q = (0.7, 0.6), A* = {short}, margin m = 0.1.
Windy (w = 1): Q = (0.2, 0.6), A* = {long}, m = 0.4 (margin of long over short).
Graded necessity N = max Q of the others − max Q of the factual best group under the
intervention (necessary iff N > 0: the factual best action is no longer optimal).
- p -> 0: calm Q(short) = 1: N = 0.6 - 1 = -0.4 (strength 0.3); windy Q(short) = 0.5:
  N = 0.5 - 0.6 = -0.1 (strength 0.3). Not necessary either time.
- r -> 0: calm: no change, N = -0.1 (strength 0); windy Q(short) = 0.7 > 0.6: N = 0.1,
  necessary (strength 0.5).
- w (state factor): calm's alternative is windy: N = 0.6 - 0.2 = 0.4; windy's is calm:
  N = 0.7 - 0.6 = 0.1. Necessary both times (strength 0.5).
Graded sufficiency S = the factual best action's lead with only f kept (every other model
factor neutral; sufficient iff only factual best actions stay optimal, seed 002's PS = 1):
- calm: p kept, r = 0: 0.7 - 0.6 = 0.1; r kept, p = 0: 1 - 0.6 = 0.4; w kept, all neutral:
  1 - 0.6 = 0.4. All three sufficient.
- windy: p kept, r = 0: 0.6 - 0.7 = -0.1 (not sufficient); r kept, p = 0: 0.6 - 0.5 = 0.1
  (sufficient); w kept, all neutral: 0.6 - 1 = -0.4 (not sufficient).
Influence order (necessity, then declaration order): calm w 0.4, r -0.1, p -0.4 (p makes
short *more* clearly best: the furthest from being necessary); windy r 0.1, w 0.1, p -0.1.
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
    assert (p.necessity, r.necessity, w.necessity) == pytest.approx((-0.4, -0.1, 0.4))
    assert (p.strength, r.strength, w.strength) == pytest.approx((0.3, 0.0, 0.5))
    assert (p.sufficient, r.sufficient, w.sufficient) == (True, True, True)
    assert (p.ps, r.ps, w.ps) == (1.0, 1.0, 1.0)
    assert (p.sufficiency, r.sufficiency, w.sufficiency) == pytest.approx((0.1, 0.4, 0.4))
    assert w.best_after == ("long",) and w.changes_best and not p.changes_best
    assert calm.influence_order() == ("w", "r", "p")


def test_windy_state_by_hand(factual, truth):
    windy = truth.states[state_id(factual, 1, 1)]
    assert windy.margin == pytest.approx(0.4)
    p, r, w = (windy.effect(f) for f in "prw")
    assert (p.necessary, r.necessary, w.necessary) == (False, True, True)
    assert (p.necessity, r.necessity, w.necessity) == pytest.approx((-0.1, 0.1, 0.1))
    assert (p.strength, r.strength, w.strength) == pytest.approx((0.3, 0.5, 0.5))
    assert (p.sufficient, r.sufficient, w.sufficient) == (False, True, False)
    assert (p.ps, r.ps, w.ps) == (0.0, 1.0, 0.0)
    assert (p.sufficiency, r.sufficiency, w.sufficiency) == pytest.approx((-0.1, 0.1, -0.4))
    assert r.best_after == ("short",)
    assert windy.influence_order() == ("r", "w", "p")  # r, w tie: declaration order


def test_a_new_tie_is_not_necessary_but_changes_a_star():
    """Hand-made states: short 0.7 vs long 0.6 factually; the intervention makes them 0.6 and
    0.6. A* changes ({short} -> {long, short}) but short is still optimal: not necessary."""
    from explaincheck.core.factors.truth import model_effect
    from explaincheck.core.oracle.types import StateFacts

    def facts(short: float, long: float) -> StateFacts:
        best = tuple(a for a, q in (("short", short), ("long", long)) if q == max(short, long))
        return StateFacts(
            id=0, valuation={"s": 1}, labels=(), value=max(short, long), danger=0.0,
            q={"short": short, "long": long}, best=best, worst=(), action_order=(best,),
            optimal_action=best[0], dead_end=False, bottleneck=False, centrality=0.0,
            is_goal=False, is_unsafe=False, is_initial=False, successors={},
        )  # fmt: skip

    factual, tied = facts(0.7, 0.6), facts(0.6, 0.6)
    table = {(("s", 1),): tied}
    effect = model_effect(HAND[0], factual, table, {(("s", 1),): factual})
    assert effect is not None and effect.changes_best and not effect.necessary
    assert effect.necessity == pytest.approx(0.0)


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
    """docs/method.md, "Why-questions (factors)": the windy state's numbers, under necessity
    and under sufficiency apart."""
    from explaincheck.core.taxonomy.factors import Factors, factor_metrics

    windy = truth.states[state_id(factual, 1, 1)]
    expected = {
        "necessary": [e.factor for e in windy.effects if e.necessary],
        "sufficient": [e.factor for e in windy.effects if e.sufficient],
        "necessity": {e.factor: e.necessity for e in windy.effects},
        "sufficiency": {e.factor: e.sufficiency for e in windy.effects},
        "ps": {e.factor: e.ps for e in windy.effects},
        "kind": {f.id: f.kind for f in HAND},
        "strength": {e.factor: e.strength for e in windy.effects},
    }
    right = factor_metrics(["r", "w", "p"], expected)
    assert right["precision"] == pytest.approx(2 / 3) and right["best_precision"] == 2 / 3
    # ρ per kind: model r 0.1 then p -0.1 (in order: 1); one state factor: undefined. Mixed,
    # (3, 2, 1) against (0.1, 0.1, -0.1) would have given 0.866.
    assert right["spearman_model"] == pytest.approx(1.0) and right["spearman_state"] is None
    assert not right["inverted"] and not right["uncited_outranks"] and right["passes"]
    # sufficiency is seed 002's PS: r kept 0.6 > 0.5 (1), p kept 0.7 > 0.6 (0), w kept 1 > 0.6 (0)
    assert expected["ps"] == {"p": 0.0, "r": 1.0, "w": 0.0}
    assert right["spearman_model_sufficiency"] == pytest.approx(1.0)
    assert right["precision_sufficiency"] == pytest.approx(1 / 3)
    assert right["passes_sufficiency"]
    wrong = factor_metrics(["p", "r", "w"], expected)
    assert wrong["spearman_model"] == pytest.approx(-1.0) and wrong["inverted"]
    assert wrong["inverted_sufficiency"] and not wrong["passes_sufficiency"]
    assert Factors().state_delta(windy) == pytest.approx(0.8)  # 1 - (0.1 - (-0.1))


def _expected(truth, state, factors):
    effects = truth.states[state].effects
    return {
        "necessary": [e.factor for e in effects if e.necessary],
        "sufficient": [e.factor for e in effects if e.sufficient],
        "necessity": {e.factor: e.necessity for e in effects},
        "sufficiency": {e.factor: e.sufficiency for e in effects},
        "ps": {e.factor: e.ps for e in effects},
        "kind": {f.id: f.kind for f in factors},
        "strength": {e.factor: e.strength for e in effects},
    }


def test_an_omitted_necessary_state_factor_fails_necessity_across_kinds(factual):
    """Windy, with a fourth factor L (the long path's chance, neutral 0.6 = unchanged: N = -0.4).
    Necessary: r (model, 0.1) and w (state, 0.1); not: p (-0.1), L (-0.4). Citing r, p, L
    leaves w out: precision 1/3 (best 2/3), and w, necessary, outranks the unnecessary p and L
    although its kind differs. Comparing kinds not at all (the first rule) let it pass."""
    from explaincheck.core.taxonomy.factors import factor_metrics

    extra = (*HAND, Factor("L", "the long path's chance", MODEL, constants={"L": 0.6}))
    truth = compute_factor_truth(extra, factual, BASE)
    expected = _expected(truth, state_id(factual, 1, 1), extra)
    assert expected["necessity"] == pytest.approx({"p": -0.1, "r": 0.1, "w": 0.1, "L": -0.4})
    assert sorted(expected["necessary"]) == ["r", "w"]
    found = factor_metrics(["r", "p", "L"], expected)
    assert found["precision"] == pytest.approx(1 / 3) and found["best_precision"] == 2 / 3
    assert found["uncited_outranks"] and not found["passes"]
    assert factor_metrics(["r", "w", "p"], expected)["passes"]  # both necessary ones first
    assert factor_metrics(["w", "r", "p"], expected)["passes"]  # r and w tie (0.1): either way


def test_the_order_graded_is_the_order_the_prompt_asks_for():
    """Issue 51.6: the prompt defines one scale (how far the chosen action would fall behind),
    but across kinds only membership was compared: citing a model factor of necessity 0.098
    before a state factor of 1.0 passed, while two unnecessary model factors (−0.286, −0.333)
    in the wrong order failed. Now every factor is ranked on that one scale."""
    from explaincheck.core.taxonomy.factors import factor_metrics, factor_part_chance

    expected = {
        "necessary": ["m", "s"],
        "sufficient": [],
        "necessity": {"m": 0.098, "s": 1.0, "a": -0.286, "b": -0.333},
        "ps": {"m": 0.0, "s": 0.0, "a": 0.0, "b": 0.0},
        "kind": {"m": MODEL, "s": STATE, "a": MODEL, "b": MODEL},
        "strength": {"m": 0.1, "s": 1.0, "a": 0.0, "b": 0.0},
    }
    assert not factor_metrics(["m", "s", "a"], expected)["passes"]  # 0.098 before 1.0
    assert factor_metrics(["m", "s", "a"], expected)["inverted"]
    assert factor_metrics(["s", "m", "a"], expected)["passes"]
    assert not factor_metrics(["s", "m", "b"], expected)["passes"]  # a (−0.286) left out
    # one order of 24 passes: s, m, a
    assert factor_part_chance(expected) == pytest.approx(1 / 24)


def test_a_tie_at_value_zero_is_sufficient_at_most_one_over_the_tie():
    """all_zero.prism: keeping any one of g, a, b with the other two 0 leaves short and long at
    0; a tie of two with one factual best action: PS = 1/2, not sufficient. Before, a lead of 0
    counted as sufficient for all three."""
    base = OracleRequest(str(Path(MODEL_PATH).parent / "all_zero.prism"), "g=1,a=1,b=1")
    factors = tuple(Factor(c, c, MODEL, constants={c: 0}) for c in "gab")
    factual = compute_oracle(base)
    truth = compute_factor_truth(factors, factual, base)
    start = state_id_of(factual, s=0)
    effects = {e.factor: e for e in truth.states[start].effects}
    assert factual.state(start).best == ("short",)
    assert {f: e.sufficiency for f, e in effects.items()} == {"g": 0.0, "a": 0.0, "b": 0.0}
    assert {f: e.ps for f, e in effects.items()} == {"g": 0.5, "a": 0.5, "b": 0.5}
    assert not any(e.sufficient for e in effects.values())
    # necessity: g -> 0 ties both at 0 (not necessary), a -> 0: long 0.5 ahead (necessary)
    assert {f: e.necessary for f, e in effects.items()} == {"g": False, "a": True, "b": False}


def test_states_an_intervention_makes_unreachable_are_counted():
    """gate.prism with g = 1: s = 0, 1 and 2 are decided; with g neutral (0) no run reaches
    s = 1, so it is left out of the truth, and counted."""
    base = OracleRequest(str(Path(MODEL_PATH).parent / "gate.prism"), "g=1")
    factors = (Factor("g", "the gate", MODEL, constants={"g": 0}),)
    factual = compute_oracle(base)
    truth = compute_factor_truth(factors, factual, base)
    assert sorted(truth.states) == sorted([state_id_of(factual, s=0), state_id_of(factual, s=2)])
    assert truth.unreachable == 1


def state_id_of(oracle, **valuation):
    return next(x.id for x in oracle.states if x.valuation == valuation)

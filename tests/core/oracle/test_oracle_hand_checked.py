"""Exact values of tiny models under tests/models, worked out by hand (derivations inline)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from oracle_helpers import fraction, model, state

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import compute_in_process
from explaincheck.core.oracle.types import EXACT, VERIFIED, OracleRequest

# model -> (constants, variable, {value of the variable: (V, D, {action: Q})}).
# D is None where the model has no unsafe label.
EXPECTED = {
    # Q(a) = 1/10 + 2/10, Q(b) = 3/10, Q(c) = 1/4; D(0) = min(7/10, 7/10, 3/4).
    "tie": (
        "",
        "s",
        {
            0: (F(3, 10), F(7, 10), {"a": F(3, 10), "b": F(3, 10), "c": F(1, 4)}),
            1: (F(1), F(0), {}),
            2: (F(1), F(0), {}),
            3: (F(0), F(1), {}),
        },
    ),
    # s=2 can never reach the goal (V=0) but can wait there forever, so D(2)=0 and D(0)=0.
    "dead_end": (
        "",
        "s",
        {
            0: (F(1, 2), F(0), {"go": F(1, 2), "risky": F(1, 4)}),
            1: (F(1), F(0), {"left": F(1)}),
            2: (F(0), F(0), {"right": F(0), "wait": F(0)}),
            3: (F(1), F(0), {}),
            4: (F(0), F(1), {}),
        },
    ),
    # V3 = 9/10 V4, V4 = 1/2 + 1/2 V3 => V3 = 9/11, V4 = 10/11; V2 = 1/2 V3 + 1/2 V2 = V3;
    # V0 = max(1/2 V1, 4/5 V2) = max(9/22, 36/55). D3 = 1/10 + 9/10 D4, D4 = 1/2 D3
    # => D3 = 2/11, D4 = 1/11; D0 = min(1/2 + 1/2 D1, 1/5 + 4/5 D2) = min(13/22, 19/55).
    "chain": (
        "",
        "s",
        {
            0: (F(36, 55), F(19, 55), {"up": F(9, 22), "down": F(36, 55)}),
            1: (F(9, 11), F(2, 11), {"go": F(9, 11)}),
            2: (F(9, 11), F(2, 11), {"go": F(9, 11)}),
            3: (F(9, 11), F(2, 11), {"go": F(9, 11)}),
            4: (F(10, 11), F(1, 11), {"go": F(10, 11)}),
            5: (F(1), F(0), {}),
            6: (F(0), F(1), {}),
        },
    ),
    # try: 1/2 goal, 1/4 deadlock, 1/4 pit; stop: deadlock. D0 = min(1/4, 0).
    "deadlock": (
        "",
        "s",
        {
            0: (F(1, 2), F(0), {"try": F(1, 2), "stop": F(0)}),
            1: (F(1), F(0), {}),
            2: (F(0), F(0), {}),
            3: (F(0), F(1), {}),
        },
    ),
    # Gambler's ruin, p = 2/5, r = (1-p)/p = 3/2: V(x) = (1 - r^x) / (1 - r^N); quitting is
    # certain ruin, so D = 1 - V. N=3: V1 = (1/2)/(19/8) = 4/19, V2 = (5/4)/(19/8) = 10/19.
    "gambler:N=3": (
        "N=3",
        "x",
        {
            0: (F(0), F(1), {}),
            1: (F(4, 19), F(15, 19), {"bet": F(4, 19), "quit": F(0)}),
            2: (F(10, 19), F(9, 19), {"bet": F(10, 19), "quit": F(0)}),
            3: (F(1), F(0), {}),
        },
    ),
    # N=4: 1 - r^4 = -65/16, V1 = 8/65, V2 = 20/65, V3 = 38/65.
    "gambler:N=4": (
        "N=4",
        "x",
        {
            0: (F(0), F(1), {}),
            1: (F(8, 65), F(57, 65), {"bet": F(8, 65), "quit": F(0)}),
            2: (F(4, 13), F(9, 13), {"bet": F(4, 13), "quit": F(0)}),
            3: (F(38, 65), F(27, 65), {"bet": F(38, 65), "quit": F(0)}),
            4: (F(1), F(0), {}),
        },
    ),
    # DTMC: V0 = 1/3 + 2/3 * 1/2, D0 = 2/3 * 1/2.
    "die": (
        "",
        "s",
        {
            0: (F(2, 3), F(1, 3), {"roll": F(2, 3)}),
            1: (F(1, 2), F(1, 2), {"flip": F(1, 2)}),
            2: (F(1), F(0), {}),
            3: (F(0), F(1), {}),
        },
    ),
    "no_unsafe": (
        "",
        "s",
        {
            0: (F(1), None, {"safe": F(1), "gamble": F(1, 2)}),
            1: (F(1), None, {}),
            2: (F(0), None, {}),
        },
    ),
}

# model -> bottleneck states (values of the variable), by the definition in docs/method.md §1.
BOTTLENECKS = {
    "tie": set(),
    "dead_end": set(),
    "chain": {3, 4},
    "deadlock": set(),
    "gambler:N=3": {2},
    "gambler:N=4": {2, 3},
    "die": set(),
    "no_unsafe": set(),
}


def request(case: str, method: str = "auto") -> OracleRequest:
    constants = EXPECTED[case][0]
    return OracleRequest(model(case.split(":")[0]), constants=constants, method=method)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_exact_values_match_hand_computation(oracle, case):
    result = oracle(request(case))
    _, variable, expected = EXPECTED[case]
    assert result.method == EXACT and result.tie_tolerance == 0.0
    assert result.model.states == len(expected)
    for value_of_variable, (v, d, q) in expected.items():
        facts = state(result, **{variable: value_of_variable})
        assert fraction(facts.value_exact) == v
        assert facts.value == float(v)
        if d is None:
            assert facts.danger is None and facts.danger_exact is None
        else:
            assert fraction(facts.danger_exact) == d
            assert facts.danger == float(d)
        assert {a: F(x) for a, x in facts.q_exact.items()} == q
        assert facts.q == {a: float(x) for a, x in q.items()}
        assert facts.dead_end == (v == 0)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_verified_method_matches_exact(oracle, case):
    exact = oracle(request(case, EXACT))
    verified = oracle(request(case, VERIFIED))
    assert verified.method == VERIFIED and verified.tie_tolerance == 1e-9
    assert all(s.value_exact is None and s.q_exact == {} for s in verified.states)
    for e, v in zip(exact.states, verified.states, strict=True):
        assert e.valuation == v.valuation
        assert abs(e.value - v.value) <= 1e-12
        if e.danger is None:
            assert v.danger is None
        else:
            assert abs(e.danger - v.danger) <= 1e-12
        assert e.q.keys() == v.q.keys()
        assert all(abs(e.q[a] - v.q[a]) <= 1e-12 for a in e.q)
        assert e.action_order == v.action_order
        assert (e.dead_end, e.bottleneck) == (v.dead_end, v.bottleneck)


@pytest.mark.parametrize("case", sorted(BOTTLENECKS))
def test_bottlenecks_and_dead_ends(oracle, case):
    result = oracle(request(case))
    variable = EXPECTED[case][1]
    found = {result.state(i).valuation[variable] for i in result.bottlenecks}
    assert found == BOTTLENECKS[case]
    assert not result.initial.bottleneck
    assert not any(s.bottleneck for s in result.states if s.is_goal)


def test_tie_is_decided_exactly(oracle):
    # 0.1 + 0.2 != 0.3 in doubles: a float comparison would rank a above b.
    assert 0.1 + 0.2 != 0.3
    result = oracle(request("tie"))
    start = state(result, s=0)
    assert start.q_exact == {"a": "3/10", "b": "3/10", "c": "1/4"}
    assert start.action_order == (("a", "b"), ("c",))
    assert start.best == ("a", "b")
    assert start.worst == ("c",)
    assert start.optimal_action in start.best
    verified = oracle(request("tie", VERIFIED))
    start_verified = state(verified, s=0)
    assert start_verified.q["a"] != start_verified.q["b"]  # round-off is visible ...
    assert start_verified.action_order == (("a", "b"), ("c",))  # ... and absorbed by 1e-9


def test_dead_end_with_actions(oracle):
    result = oracle(request("dead_end"))
    trapped = state(result, s=2)
    assert trapped.dead_end and trapped.value_exact == "0"
    assert trapped.action_order == (("right", "wait"),)
    assert trapped.best == trapped.worst == ("right", "wait")
    assert trapped.danger_exact == "0"  # waiting forever never falls into the pit
    assert {result.state(i).valuation["s"] for i in result.dead_ends} == {2, 4}
    assert state(result, s=0).best == ("go",) and state(result, s=0).worst == ("risky",)


def test_bottleneck_chain_scheduler(oracle):
    result = oracle(request("chain"))
    assert result.initial.valuation == {"s": 0}
    assert result.initial.optimal_action == "down"
    assert result.initial.best == ("down",) and result.initial.worst == ("up",)
    assert result.initial.action_order == (("down",), ("up",))
    assert result.has_danger and result.warnings == ()


@pytest.mark.parametrize(("case", "value"), [("deadlock", 2), ("chain", 5), ("chain", 6)])
def test_deadlock_state_has_values_but_no_actions(oracle, case, value):
    result = oracle(request(case))
    facts = state(result, s=value)
    assert facts.value_exact is not None and facts.danger_exact is not None
    assert facts.q == {} and facts.q_exact == {}
    assert facts.best == () and facts.worst == () and facts.action_order == ()
    assert facts.optimal_action is None and facts.actions == ()
    assert facts.successors == {"(no action)": {facts.id: 1.0}}  # Storm's self-loop


def test_deadlock_that_is_neither_goal_nor_unsafe(oracle):
    facts = state(oracle(request("deadlock")), s=2)
    assert not facts.is_goal and not facts.is_unsafe
    assert "goal" not in facts.labels and "unsafe" not in facts.labels
    assert facts.dead_end and facts.danger_exact == "0"


def test_constants_are_recorded(oracle):
    result = oracle(request("gambler:N=4"))
    assert result.model.constants == "N=4"
    assert result.model.variables == ("x",)
    assert result.initial.valuation == {"x": 1}


def test_undefined_constant_is_named_with_how_to_pass_it():
    with pytest.raises(ModelError) as raised:
        compute_in_process(OracleRequest(model("gambler")))
    message = str(raised.value)
    assert "undefined constant N" in message and "--const N=" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("constants", "named"),
    [
        ("M=3", "unknown constant M"),
        ("N=3,p=0.5", "constant p has a value in the model"),
        ("N", "N"),
    ],
)
def test_bad_constant_definitions(constants, named):
    with pytest.raises(ModelError) as raised:
        compute_in_process(OracleRequest(model("gambler"), constants=constants))
    assert named in str(raised.value) and "\n" not in str(raised.value)


def test_dtmc_is_a_one_action_mdp(oracle):
    result = oracle(request("die"))
    start = state(result, s=0)
    assert start.actions == ("roll",)
    assert start.best == start.worst == ("roll",) and start.optimal_action == "roll"
    assert result.model.actions == ("flip", "roll")


def test_model_without_unsafe_label_has_no_danger(oracle):
    result = oracle(request("no_unsafe"))
    assert not result.has_danger
    assert all(s.danger is None and s.danger_exact is None for s in result.states)
    assert any("'unsafe'" in w and "absent" in w for w in result.warnings)
    with pytest.raises(ValueError):
        result.compare(result.states[0], result.states[1], "danger")
    verified = oracle(request("no_unsafe", VERIFIED))
    assert not verified.has_danger and all(s.danger is None for s in verified.states)


def test_pomdp_is_refused():
    with pytest.raises(ModelError, match="POMDP is not supported"):
        compute_in_process(OracleRequest(model("pomdp")))


def test_compare_uses_exact_fractions(oracle):
    result = oracle(request("chain"))
    s1, s2, s4 = state(result, s=1), state(result, s=2), state(result, s=4)
    assert result.compare(s1, s2) == 0
    assert result.compare(s4, s1) == 1 and result.compare(s1, s4) == -1
    assert result.compare(s4, s1, "danger") == -1

"""D = 1 − V without Storm's second check, where the graph says every run ends in the goal or an
unsafe state and never reaches the other kind after (``complement``). Each model below is
checked by the verified method and by Storm's Rational engine (the reference, with its own
check of D): where one of the four conditions fails, D is not V's complement (the models are
built so that it is not) and Storm's check must still be asked."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from explaincheck.core.oracle import compute_in_process
from explaincheck.core.oracle.complement import (
    COMPLEMENT,
    complement_bounds,
    ends_in_goal_or_unsafe,
)
from explaincheck.core.oracle.graph_analysis import acyclic_depth
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.bulk import read_bulk
from explaincheck.core.oracle.storm.checking import TOPOLOGICAL, SoundBounds
from explaincheck.core.oracle.types import EXACT, VERIFIED, OracleRequest

COMPLEMENT_WORDS = "D = 1 − V (every run ends in the goal or an unsafe state"

# A ladder with a step limit: no cycle but self-loops (the goal and the trap are absorbing).
# From rung k: climb (0.7 up, 0.2 stay, 0.1 fall into the trap) or jump (0.4 to the top, 0.6
# into the trap). Every run ends in the goal or the trap.
LADDER = """mdp
module ladder
  k : [0..4] init 0;
  trap : bool init false;
  [climb] k<4 & !trap -> 0.7:(k'=k+1) + 0.2:true + 0.1:(trap'=true);
  [jump] k<4 & !trap -> 0.4:(k'=4) + 0.6:(trap'=true);
endmodule
label "goal" = k=4 & !trap;
label "unsafe" = trap;
"""


def states_model(top: int, commands: str, goal: str, unsafe: str, constants: str = "") -> str:
    """A model of one variable s in 0..top, starting at 0."""
    return (
        f"mdp\n{constants}module m\n  s : [0..{top}] init 0;\n{commands}endmodule\n"
        f'label "goal" = {goal};\nlabel "unsafe" = {unsafe};\n'
    )


# A retry loop: cycles (try again, go back), yet no end component outside the goal and the
# trap: every choice leaves to one of them with positive probability.
RETRY = states_model(
    3,
    "  [try] s=0 -> 0.5:(s'=2) + 0.3:(s'=1) + 0.2:(s'=0);\n"
    "  [back] s=1 -> 0.6:(s'=0) + 0.4:(s'=3);\n"
    "  [risk] s=1 -> 0.5:(s'=2) + 0.5:(s'=3);\n",
    goal="s=2",
    unsafe="s=3",
)
GO = "  [go] s=0 -> 0.5:(s'=1) + 0.5:(s'=2);\n"  # the goal or the trap, even odds
# (d) fails, acyclic: a state may wait forever (a choice that only loops back), so the least
# chance of the trap is 0 while the goal's best chance is 0.5.
WAITING = states_model(2, "  [wait] s=0 -> (s'=0);\n" + GO, goal="s=1", unsafe="s=2")
# (d) fails with a cycle: two states can pass a run back and forth forever.
PING_PONG = states_model(
    3, "  [pass] s=0 -> (s'=3);\n  [pass] s=3 -> (s'=0);\n" + GO, goal="s=1", unsafe="s=2"
)
# (b) fails: the goal is not the end, a run goes on from it into the trap.
GOAL_LEADS_ON = states_model(
    2, GO + "  [on] s=1 -> (s'=2);\n  [] s=2 -> true;\n", goal="s=1", unsafe="s=2"
)
# (c) fails: an unsafe state leads on to the goal.
UNSAFE_LEADS_ON = states_model(
    2, GO + "  [on] s=2 -> (s'=1);\n  [] s=1 -> true;\n", goal="s=1", unsafe="s=2"
)
# (a) fails: a state that is both.
BOTH = states_model(2, GO + "  [] s>0 -> true;\n", goal="s>=1", unsafe="s=2")
# A zero-probability update: Storm's builder must not keep it as an entry, or the only choice
# of s=0 would seem to leave (to the trap) where in truth it only loops back (an end component).
ZERO_UPDATE = states_model(
    2,
    "  [stay] s=0 -> p:(s'=2) + (1-p):(s'=0);\n" + GO + "  [] s>0 -> true;\n",
    goal="s=1",
    unsafe="s=2",
    constants="const double p = 0;\n",
)


def both_methods(tmp_path, text: str):
    path = tmp_path / "m.prism"
    path.write_text(text)
    exact = compute_in_process(OracleRequest(str(path), method=EXACT))
    verified = compute_in_process(OracleRequest(str(path), method=VERIFIED))
    return exact, verified


def assert_agrees_with_storms_rational_d(exact, verified) -> None:
    for truth, facts in zip(exact.states, verified.states, strict=True):
        low, high = facts.danger_interval
        assert Fraction(low) <= Fraction(truth.danger_exact) <= Fraction(high), facts.id
        assert abs(facts.danger - float(Fraction(truth.danger_exact))) <= 1e-12


@pytest.mark.parametrize("text", [LADDER, RETRY], ids=["ladder", "retry"])
def test_where_every_run_ends_in_goal_or_unsafe_d_is_one_minus_v(tmp_path, text):
    exact, verified = both_methods(tmp_path, text)
    assert COMPLEMENT_WORDS in verified.values_method, verified.values_method
    assert "D: Storm's" not in verified.values_method
    assert_agrees_with_storms_rational_d(exact, verified)
    for facts in verified.states:  # the complement, state by state, and its interval turned
        assert facts.danger == pytest.approx(1.0 - facts.value, abs=1e-15)
        assert facts.danger_interval[0] <= 1.0 - facts.value_interval[1] + 1e-15
        assert facts.danger_interval[1] >= 1.0 - facts.value_interval[0] - 1e-15


def test_the_ladders_danger_by_hand(tmp_path):
    """Rung 3: climb reaches the top with 0.7 / 0.8 = 7/8 (the stays repeat), jump with 0.4, so
    V = 7/8 and the least chance of the trap is 1/8; at rung 0, V = (7/8)^4."""
    _, verified = both_methods(tmp_path, LADDER)
    by_rung = {(s.valuation["k"], s.valuation["trap"]): s for s in verified.states}
    assert by_rung[(3, False)].danger == pytest.approx(1 / 8, abs=1e-12)
    assert by_rung[(0, False)].value == pytest.approx((7 / 8) ** 4, abs=1e-12)
    assert by_rung[(0, False)].danger == pytest.approx(1 - (7 / 8) ** 4, abs=1e-12)


@pytest.mark.parametrize(
    "text",
    [WAITING, PING_PONG, GOAL_LEADS_ON, UNSAFE_LEADS_ON, BOTH, ZERO_UPDATE],
    ids=["waiting", "ping-pong", "goal-leads-on", "unsafe-leads-on", "both", "zero-update"],
)
def test_where_a_condition_fails_storm_checks_d_and_d_is_not_the_complement(tmp_path, text):
    exact, verified = both_methods(tmp_path, text)
    assert COMPLEMENT_WORDS not in verified.values_method, verified.values_method
    assert "D: Storm's" in verified.values_method
    assert_agrees_with_storms_rational_d(exact, verified)
    initial = exact.states[0]  # each model is built so that the complement would be wrong
    assert Fraction(initial.danger_exact) != 1 - Fraction(initial.value_exact)


def test_storms_builder_keeps_no_zero_probability_entry(tmp_path):
    path = tmp_path / "m.prism"
    path.write_text(ZERO_UPDATE)
    parsed = building.parse(OracleRequest(str(path)))
    table = read_bulk(building.build(parsed, exact=False, state_limit=100, path=str(path)))
    rows = table.arrays.rows
    assert rows.nnz == 5  # stay: itself; go: two; the goal's and the trap's loops
    assert (rows.data > 0).all()


def test_the_conditions_on_the_pattern_alone(tmp_path):
    """``ends_in_goal_or_unsafe`` on the ladder's pattern (probabilities not loaded, as when
    Storm's model is alive), and on the same pattern with the goal or the trap moved."""
    path = tmp_path / "m.prism"
    path.write_text(LADDER)
    parsed = building.parse(OracleRequest(str(path)))
    model = building.build(parsed, exact=False, state_limit=100, path=str(path))
    table = read_bulk(model, deferred=True)
    arrays = table.arrays
    goal, unsafe = table.with_label("goal"), table.with_label("unsafe")
    assert acyclic_depth(arrays, 100) is not None
    for acyclic in (True, False):  # the cheap check and the end components agree
        assert ends_in_goal_or_unsafe(arrays, goal, unsafe, acyclic)
    rung = np.zeros(arrays.size, dtype=bool)
    rung[table.initial] = True  # rung 0 as the trap too: it leads on to the goal
    assert not ends_in_goal_or_unsafe(arrays, goal, unsafe | rung, acyclic=True)
    assert not ends_in_goal_or_unsafe(arrays, goal | rung, unsafe, acyclic=True)  # and on
    assert not ends_in_goal_or_unsafe(arrays, goal | unsafe, unsafe, acyclic=True)  # (a)
    nothing = np.zeros(arrays.size, dtype=bool)  # no trap: the trap's loop is outside both
    assert not ends_in_goal_or_unsafe(arrays, goal, nothing, acyclic=True)
    assert not ends_in_goal_or_unsafe(arrays, goal, nothing, acyclic=False)


def test_complement_bounds_turn_v_around_one_step_wider():
    value = SoundBounds(
        np.array([0.25, 0.0, 1.0]), np.array([0.5, 0.0, 1.0]), True, 7, np.array([1, 0, 0]),
        TOPOLOGICAL,
    )  # fmt: skip
    danger = complement_bounds(value)
    assert danger.lower.tolist() == [0.5, 1.0, 0.0]
    assert danger.upper.tolist() == [0.75, 1.0, 0.0]
    assert danger.converged and danger.iterations == 8
    assert danger.scheduler is None and danger.engine == COMPLEMENT

"""The Bellman view and policy iteration in exact fractions (Frozen Lake)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.workbench.bellman import DANGER, bellman_view, equation_lines
from explaincheck.core.workbench.policy_iteration import evaluate, policy_iteration
from explaincheck.core.workbench.transitions import load_transitions

MODELS = Path(__file__).resolve().parents[2] / "models"

F = Fraction


def test_state_13_is_16_17_with_every_fraction(lake):
    _, oracle, transitions = lake
    view = bellman_view(oracle, transitions, 13)
    assert view.exact and view.value == F(16, 17)
    sums = {line.action: line for line in view.sums}
    down = sums["down"]
    assert [(t.successor, t.probability, t.value) for t in down.terms] == [
        (10, F(1, 3), F(15, 17)),
        (13, F(1, 3), F(16, 17)),
        (15, F(1, 3), F(1)),
    ]
    assert {a: s.total for a, s in sums.items()} == {
        "left": F(44, 51),
        "down": F(16, 17),
        "right": F(46, 51),
        "up": F(15, 17),
    }
    assert [a for a, s in sums.items() if s.optimal] == ["down"]
    # the sums are the oracle's own Q values
    assert {a: str(s.total) for a, s in sums.items()} == oracle.state(13).q_exact
    text = equation_lines(view)
    assert (
        "down: 1/3·V(10) + 1/3·V(13) + 1/3·V(15) = 1/3·15/17 + 1/3·16/17 + 1/3·1 = 16/17   ◀ max"
        in text
    )


def test_danger_is_a_minimum(lake):
    _, oracle, transitions = lake
    view = bellman_view(oracle, transitions, 13, DANGER)
    assert view.value == F(1, 28)
    assert [s.action for s in view.sums if s.optimal] == ["down"]
    assert min(s.total for s in view.sums) == F(1, 28)


def test_goal_state_has_no_equation(lake):
    _, oracle, transitions = lake
    view = bellman_view(oracle, transitions, 15)
    assert view.sums == () and view.value == 1 and "goal" in view.note


def test_policy_iteration_ends_in_the_oracles_values(lake):
    _, oracle, transitions = lake
    rounds = policy_iteration(oracle, transitions)
    assert 1 < len(rounds) < 20
    assert rounds[-1].switched == {}
    assert rounds[0].switched  # the first policy (all "left") is not optimal
    for state in oracle.states:
        assert rounds[-1].values[state.id] == state.exact_value()
    # every round is at least as good as the one before (policy improvement)
    for before, after in itertools.pairwise(rounds):
        assert all(b <= a for b, a in zip(before.values, after.values, strict=True))


def test_evaluate_a_policy_by_hand(lake):
    _, oracle, transitions = lake
    goal = [s.is_goal for s in oracle.states]
    # all "left": from the start the agent never reaches the goal side? its value is whatever
    # Storm gives for the induced chain; state 15 is the goal
    values = evaluate(transitions, goal, {s: "down" for s in range(len(goal)) if not goal[s]})
    assert values[15] == 1
    assert values[13] == F(1, 3) * values[10] + F(1, 3) * values[13] + F(1, 3)


def test_policy_iteration_refuses_large_models(lake):
    _, oracle, transitions = lake
    bigger = type(transitions)(True, transitions.choices * 4)
    with pytest.raises(ExplaincheckError, match="at most 50 states"):
        policy_iteration(oracle, bigger)


def test_an_edited_file_gives_its_new_transitions(tmp_path):
    """A live edit writes the same file anew: the Bellman page and the simulator read the new
    fractions, not the ones kept from the file's first text (issue 50's demonstration: 2/3 typed,
    1/3 still shown)."""
    source = (MODELS / "slip.prism").read_text()
    path = tmp_path / "lake.prism"
    path.write_text(source)
    request = OracleRequest(str(path), constants="slip=0.5")
    before = load_transitions(request)
    assert dict(before.labelled(0))["detour"][1] == Fraction(361, 400)
    path.write_text(source.replace("361/400", "3/4").replace("39/400", "1/4"))
    after = load_transitions(request)
    assert dict(after.labelled(0))["detour"] == {1: Fraction(3, 4), 2: Fraction(1, 4)}
    assert load_transitions(request) is after  # kept for the same content

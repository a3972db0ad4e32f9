"""The one derivation of a state's action facts, shared by the per-state and columnar oracles."""

from __future__ import annotations

from fractions import Fraction

from explaincheck.core.oracle.columnar import NO_ACTION, choice_facts


def near(a, b) -> bool:
    return abs(a - b) <= 1e-9


def test_ties_grouped_in_model_order_and_unlabelled_choices_only_in_successors():
    facts = choice_facts(
        ["left", None, "right", "up"],
        [0.5, 0.9, 0.5 + 1e-12, 0.2],
        [{1: 1.0}, {0: 1.0}, {2: 0.5, 3: 0.5}, {4: 1.0}],
        chosen=2,
        tied=near,
    )
    assert facts["q"] == {"left": 0.5, "right": 0.5 + 1e-12, "up": 0.2}
    assert facts["action_order"] == (("left", "right"), ("up",))
    assert (facts["best"], facts["worst"]) == (("left", "right"), ("up",))
    assert facts["optimal_action"] == "right"
    assert facts["successors"][NO_ACTION] == {0: 1.0}


def test_exact_keys_decide_the_order_where_floats_would_tie():
    third = Fraction(1, 3)
    facts = choice_facts(
        ["a", "b"],
        [float(third), float(third)],
        [{0: 1.0}, {1: 1.0}],
        chosen=1,
        tied=lambda x, y: x == y,
        keys=[third, third + Fraction(1, 10**20)],
    )
    assert facts["action_order"] == (("b",), ("a",))


def test_a_state_without_labelled_actions_has_no_optimal_action():
    facts = choice_facts([None], [1.0], [{0: 1.0}], chosen=0, tied=near)
    assert facts["optimal_action"] is None and facts["action_order"] == () and facts["q"] == {}

"""Under an expected-reward property (the 4-state walk's R{"time"}min=? [F "goal"], worked out
by hand in tests/models/rewards_four.prism) the inspector's Policy box words an infinite
expected value as the rest of the GUI does ("∞ (never reaches the goal for sure)", never
"inf"), and the graph's flaw colouring places V̂ on the property's own range (not clamped to
0..1) with the legend in its unit and direction, and |V̂ − V| as a share of that range."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gui_helpers import wait_for

from explaincheck.core.workspace.presentation.flaw_pictures import choice
from explaincheck.gui.views import colours

MODELS = Path(__file__).resolve().parents[1] / "models"
PROPS = '"time_min": R{"time"}min=? [F "goal"];\n'
# hurry from the start, jump at the junction: the pit may follow, so π's expected time is ∞
POLICY = "s,action\n0,fast\n1,risky\n"


@pytest.fixture
def walk(qtbot, window, tmp_path):
    model = tmp_path / "walk.prism"
    shutil.copy(MODELS / "rewards_four.prism", model)
    model.with_suffix(".props").write_text(PROPS)
    window.model.open_spec(str(model))
    wait_for(qtbot, lambda: window.model.oracle is not None and window.graph.ready, 120)
    box = window.model_view.property_box
    index = next(i for i in range(box.choice.count()) if "time_min" in box.choice.itemText(i))
    box.choice.setCurrentIndex(index)
    box.use_button.click()
    wait_for(qtbot, lambda: window.model.oracle.prop.kind == "reward" and window.graph.ready, 120)
    wait_for(qtbot, lambda: not window.busy(), 60)
    return window.model.oracle


def by_s(oracle, s: int) -> int:
    return next(state.id for state in oracle.states if state.valuation["s"] == s)


def test_the_policy_box_words_an_infinite_expected_time(qtbot, window, walk, tmp_path):
    policy = tmp_path / "walk_policy.csv"
    policy.write_text(POLICY)
    window.policy.open_policy(str(policy))
    wait_for(qtbot, lambda: getattr(window.model.oracle, "policy", None) is not None, 60)
    wait_for(qtbot, lambda: window.graph.ready and not window.busy(), 60)
    oracle = window.model.oracle
    box = window.inspector.policy_box
    window.inspector.show_state(by_s(oracle, 1))  # the junction: π jumps
    assert not box.isHidden()
    never = "∞ (never reaches the goal for sure)"
    assert box.fields["V_policy"].text() == never
    assert box.fields["V"].text() == "2.5  (= 5/2)" or box.fields["V"].text() == "2.5"
    assert box.fields["regret"].text() == never  # Q*(junction, risky) = ∞, V* = 5/2
    assert box.fields["loss"].text() == never
    assert box.titles["V_policy"].text() == "V^π(s): π's expected time:"
    assert box.titles["regret"].text() == "Regret Q*(s, π(s)) − V*(s):"
    shown = [label.text() for label in box.fields.values()]
    assert not any("inf" in text or "nan" in text for text in shown), shown
    # the regret colouring: the finite regret (17/4 − 7/2 at the start) tops the scale, the
    # junction's ∞ is drawn at its top end; the status line says ∞ too
    graph = window.graph
    assert graph.legend.scale_texts()[0] == "regret of π ÷ 0.75, ∞ at the top"
    top = colours.danger_colour(1.0).name()
    assert graph.node_items[by_s(oracle, 1)].fill().name() == top
    assert graph.node_items[by_s(oracle, 0)].fill().name() == top
    assert (
        window.statusBar()
        .currentMessage()
        .startswith("Policy walk_policy.csv: V^π(s0) = ∞, value loss ∞")
    )


def test_the_flaw_colouring_scales_by_the_propertys_range(qtbot, window, walk):
    from explaincheck.core.workspace.presentation.flaw_pictures import flawed_picture

    oracle, spec = walk, "flaw:myopic:2"
    graph = window.graph
    box = graph.toolbar.colour_box
    box.setCurrentIndex(box.findData(choice("flaw-v", spec)))
    wait_for(qtbot, lambda: graph.overlays.flaw_colouring.ready, 60)
    picture = flawed_picture(oracle, spec)
    fills = {i: n.fill().name() for i, n in graph.node_items.items()}
    start = by_s(oracle, 0)
    # V̂(start) = P(goal within 2 steps) = 7/8, which looks good: the low end of the time scale
    assert fills[start] == colours.value_colour(1 - 7 / 8).name()
    assert fills[start] != colours.value_colour(7 / 8).name()  # (a probability's place)
    for state in oracle.states:
        assert fills[state.id] == colours.value_colour(picture.places[state.id]).name()
    title, low, high = graph.legend.scale_texts()
    assert title.startswith(f"V̂(s) of {spec}: its chance of reaching the goal, drawn as V")
    assert title.endswith("(lower is better)")
    assert (low, high) == ("P = 1", "P = 0")

    box.setCurrentIndex(box.findData(choice("flaw-diff", spec)))
    wait_for(qtbot, lambda: graph.overlays.flaw_colouring.ready, 60)
    fills = {i: n.fill().name() for i, n in graph.node_items.items()}
    junction = by_s(oracle, 1)
    assert fills[junction] == colours.danger_colour(abs(0.85 - (1 - 2.5 / 3.5))).name()
    for state in oracle.states:
        assert fills[state.id] == colours.danger_colour(picture.gaps[state.id]).name()
    assert graph.legend.scale_texts()[0].endswith("a share of V's range, in its direction")

"""The graph colours states by a flawed explainer's V̂ (or |V̂ − V|) beside the true V: on
frozen_lake, ``flaw:determinised`` (a slip against a wall becomes "stay put" for sure, the
⅓/⅓/⅓ slips keep their chance) sees the start at 23/44 where the truth is 14/17."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for

from explaincheck.core.workspace.presentation.flaw_pictures import choice, flawed_values
from explaincheck.gui.views import colours


def fills(graph) -> dict[int, str]:
    return {i: n.fill().name() for i, n in graph.node_items.items()}


def test_colouring_by_a_flaw_changes_node_colours(qtbot, window):
    oracle = open_env(qtbot, window, "frozen_lake")
    graph = window.graph
    true_fills = fills(graph)
    assert true_fills[0] == colours.value_colour(oracle.states[0].value).name()
    box = graph.toolbar.colour_box
    box.setCurrentIndex(box.findData(choice("flaw-v", "flaw:determinised")))
    assert box.currentText() == "V (flaw:determinised)"
    wait_for(qtbot, lambda: graph.overlays.flaw_colouring.ready, 60)
    seen = flawed_values(oracle, "flaw:determinised")
    assert seen[0] == pytest.approx(23 / 44)
    flawed_fills = fills(graph)
    assert flawed_fills[0] == colours.value_colour(seen[0]).name()
    assert flawed_fills[0] != true_fills[0]
    assert graph.legend.graph_style.scale_title == "V̂(s) of flaw:determinised"

    box.setCurrentIndex(box.findData(choice("flaw-diff", "flaw:determinised")))
    wait_for(qtbot, lambda: graph.overlays.flaw_colouring.ready, 60)
    gap = abs(seen[0] - float(oracle.states[0].value))
    assert gap > 0.15
    assert fills(graph)[0] == colours.danger_colour(gap).name()
    goal = next(s.id for s in oracle.states if "goal" in s.labels)
    assert fills(graph)[goal] == colours.danger_colour(0.0).name()  # both see the goal as won

    box.setCurrentIndex(box.findData("value"))  # back to the truth
    assert fills(graph) == true_fills
    assert graph.style_.fill_source is None

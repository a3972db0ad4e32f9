"""The graph view on hand-made oracles: nodes, highlights, overlays, neighbourhoods, search."""

from __future__ import annotations

from gui_fakes import BOTTLENECK, GRID_CELLS, HOLE, chain_oracle, grid_oracle
from gui_helpers import wait_for


def make_graph(qtbot, oracle):
    from explaincheck.gui.views.graph_view import GraphView

    graph = GraphView()
    qtbot.addWidget(graph)
    graph.resize(900, 700)
    graph.show()
    graph.set_oracle(oracle)
    wait_for(qtbot, lambda: graph.ready, 30)
    return graph


def test_grid_nodes_and_highlights(qtbot, qloop):
    oracle = grid_oracle()
    graph = make_graph(qtbot, oracle)
    assert len(graph.node_items) == 9
    assert graph.hidden_count == 0
    bottleneck = GRID_CELLS.index(BOTTLENECK)
    hole = GRID_CELLS.index(HOLE)
    marked_bottleneck = {
        i for i, n in graph.node_items.items() if "bottleneck" in n.visible_marks()
    }
    marked_dead = {i for i, n in graph.node_items.items() if "dead_end" in n.visible_marks()}
    assert marked_bottleneck == {bottleneck}
    assert marked_dead == {hole}
    assert "initial" in graph.node_items[0].visible_marks()
    # grid layout: cells one CELL apart in the variables' order (x right, y down)
    x0, y0 = graph.node_items[0].pos().x(), graph.node_items[0].pos().y()
    x1 = graph.node_items[GRID_CELLS.index((1, 0))].pos().x()
    y1 = graph.node_items[GRID_CELLS.index((0, 1))].pos().y()
    assert x1 > x0 and y1 > y0


def test_overlay_toggles_and_colours(qtbot, qloop):
    graph = make_graph(qtbot, grid_oracle())
    bottleneck = GRID_CELLS.index(BOTTLENECK)
    graph.toolbar.toggles["bottleneck"].click()
    assert "bottleneck" not in graph.node_items[bottleneck].visible_marks()
    graph.toolbar.toggles["bottleneck"].click()
    assert "bottleneck" in graph.node_items[bottleneck].visible_marks()
    goal = GRID_CELLS.index((2, 2))
    assert graph.node_items[goal].fill().name() == "#fde725"  # V = 1: top of viridis
    graph.overlays.set_colour_by("danger")
    assert graph.node_items[goal].fill().name() != "#fde725"
    graph.overlays.set_overlay("optimal", True)
    assert any(e.emphasised() for e in graph.edge_items.values())


def test_edges_carry_probabilities(qtbot, qloop):
    graph = make_graph(qtbot, grid_oracle())
    edge = graph.edge_items[(0, 1)]
    assert edge.actions == {"right": 0.8}
    assert "right: 0.8" in edge.toolTip()


def test_clicking_a_state_selects_it(qtbot, qloop):
    from PySide6.QtCore import Qt

    graph = make_graph(qtbot, grid_oracle())
    chosen = []
    graph.state_selected.connect(chosen.append)
    item = graph.node_items[4]
    point = graph.view.mapFromScene(item.scenePos())
    qtbot.mouseClick(graph.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert chosen and chosen[-1] == 4


def test_search():
    from explaincheck.core.workspace.presentation.state_query import find_state

    oracle = grid_oracle()  # the query is Qt-free: no widget needed
    assert find_state(oracle, "4", {}) == 4
    assert find_state(oracle, "x=2 y=1", {}) == GRID_CELLS.index((2, 1))
    assert find_state(oracle, "goal", {}) == GRID_CELLS.index((2, 2))
    assert find_state(oracle, "x=9", {}) is None


def test_the_expand_button_grows_around_every_shown_state(qtbot, qloop):
    # the button (now wired in GraphView._build_ui) expands the shown neighbourhood
    graph = make_graph(qtbot, chain_oracle(5000))
    shown = set(graph.node_items)
    assert 0 in shown
    graph.row.expand_button.click()
    wait_for(qtbot, lambda: graph.ready and set(graph.node_items) > shown, 30)


def test_big_model_shows_a_neighbourhood(qtbot, qloop):
    oracle = chain_oracle(5000)
    graph = make_graph(qtbot, oracle)
    shown = len(graph.node_items)
    assert 1 < shown < 5000
    assert graph.hidden_count == 5000 - shown
    assert f"{graph.hidden_count} of 5000 states hidden" in graph.row.hidden_label.text()
    assert any(item.expandable for item in graph.node_items.values())
    graph.expand()
    wait_for(qtbot, lambda: graph.ready and len(graph.node_items) > shown, 30)
    # selecting a far-away state brings its neighbourhood into view
    graph.select_state(2500)
    wait_for(qtbot, lambda: 2500 in graph.node_items and graph.selected_state() == 2500, 30)
    graph.highlight_states([4000])
    wait_for(qtbot, lambda: 4000 in graph.node_items and graph.node_items[4000].highlighted, 30)


def test_tooltips_and_labels_follow_the_environments_variable_order(qtbot, qloop):
    from explaincheck.gui.views.graph_view import GraphView

    graph = GraphView()
    qtbot.addWidget(graph)
    graph.resize(900, 700)
    graph.show()
    oracle = grid_oracle()
    state = oracle.states[GRID_CELLS.index((1, 0))]
    names = {"y": "row", "x": "column"}  # the words say "row y, column x"
    graph.set_oracle(oracle, names)
    wait_for(qtbot, lambda: graph.ready, 30)
    node = graph.node_items[state.id]
    tip = node.toolTip()
    assert f"row (y) = {state.valuation['y']}, column (x) = {state.valuation['x']}" in tip
    graph.style_.labels = "valuation"
    assert node._caption().startswith(f"y={state.valuation['y']} x=")

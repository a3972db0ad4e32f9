"""Searching the graph by valuation: the state is selected and centred, a big model's
neighbourhood is recentred on it, and bad input or no match says so in the status line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from gui_fakes import GRID_CELLS, chain_oracle, grid_oracle
from gui_helpers import wait_for
from PySide6.QtCore import Qt

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def gridworld_oracle(n: int):
    """The benchmark's N×N slippery gridworld as a hand-made oracle (no Storm)."""
    import sys

    sys.path.insert(0, str(BENCHMARKS))  # gui_large_model imports its sibling gridworld
    spec = importlib.util.spec_from_file_location(
        "gui_large_model", BENCHMARKS / "gui_large_model.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.synthetic_oracle(n, "grid.prism")


def make_graph(qtbot, oracle):
    from explaincheck.gui.views.graph_view import GraphView

    graph = GraphView()
    qtbot.addWidget(graph)
    graph.resize(900, 700)
    graph.show()
    graph.set_oracle(oracle)
    wait_for(qtbot, lambda: graph.ready, 60)
    return graph


def search(qtbot, graph, text: str) -> None:
    graph.search.clear()
    qtbot.keyClicks(graph.search, text)
    qtbot.keyClick(graph.search, Qt.Key.Key_Return)


def test_typing_a_valuation_selects_and_centres_the_state(qtbot, qloop):
    graph = make_graph(qtbot, gridworld_oracle(25))  # 625 states, all drawn
    graph.view.zoom(4.0)
    target = 7 * 25 + 20  # ids run row by row
    search(qtbot, graph, "x=20 & y=7")
    wait_for(qtbot, lambda: graph.selected_state() == target, 10)
    assert graph.status.text() == f"State {target}: x = 20, y = 7"
    centre = graph.view.mapToScene(graph.view.viewport().rect().center())
    node = graph.node_items[target].pos()
    assert abs(centre.x() - node.x()) < 2 and abs(centre.y() - node.y()) < 2


def test_no_match_and_bad_syntax_are_told_and_keep_the_selection(qtbot, qloop):
    graph = make_graph(qtbot, grid_oracle())
    search(qtbot, graph, "x=1, y=0")
    wait_for(qtbot, lambda: graph.selected_state() == GRID_CELLS.index((1, 0)), 10)
    search(qtbot, graph, "x=9, y=0")
    wait_for(qtbot, lambda: graph.status.text().startswith("No state"), 10)
    assert graph.status.text() == "No state matches “x=9, y=0”"
    search(qtbot, graph, "x=, y=0")
    wait_for(qtbot, lambda: graph.status.text().startswith("Search:"), 10)
    assert graph.status.text() == "Search: “x=” needs a value"
    search(qtbot, graph, "z=1")
    wait_for(qtbot, lambda: "unknown variable" in graph.status.text(), 10)
    assert graph.selected_state() == GRID_CELLS.index((1, 0))


def test_a_hidden_state_of_a_big_model_gets_its_neighbourhood(qtbot, qloop):
    graph = make_graph(qtbot, chain_oracle(100_000))
    assert 77_777 not in graph.node_items
    search(qtbot, graph, "k=77777, flag=false")
    wait_for(qtbot, lambda: graph.selected_state() == 77_777, 60)
    # recentred: the state's neighbours both ways are drawn (predecessors need the full index)
    assert {77_776, 77_778, 77_770, 77_784} <= set(graph.node_items)
    assert 0 not in graph.node_items
    centre = graph.view.mapToScene(graph.view.viewport().rect().center())
    node = graph.node_items[77_777].pos()
    assert abs(centre.x() - node.x()) < 2 and abs(centre.y() - node.y()) < 2

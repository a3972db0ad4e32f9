"""The graph view and the oracle's status line on big models: toolbar texts never overlap,
the neighbourhood of a 10^5-state model appears promptly, panning a 1,000-node graph never
stalls the event loop over 100 ms, progress reaches the status bar."""

from __future__ import annotations

import time

from gui_fakes import chain_oracle, grid_oracle
from gui_helpers import wait_for
from test_graph_search import gridworld_oracle


def test_toolbar_texts_do_not_overlap_on_a_big_model(qtbot, qloop):
    from PySide6.QtWidgets import QLabel

    from explaincheck.gui.views.graph_view import GraphView

    graph = GraphView()
    qtbot.addWidget(graph)
    graph.resize(700, 500)
    graph.show()
    graph.set_oracle(chain_oracle(10_000))
    wait_for(qtbot, lambda: graph.ready, 60)
    full = graph.status.text()
    assert "10000" in full.replace(",", "")
    for width in (700, 560):
        graph.resize(width, 500)
        qtbot.wait(50)
        status, depth = graph.status.geometry(), graph.row.depth_label.geometry()
        assert not status.intersects(depth)  # the status line is a line of its own
        assert status.bottom() < depth.top()
        drawn = QLabel.text(graph.status)  # what is painted, not the full text
        assert graph.status.fontMetrics().horizontalAdvance(drawn) <= status.width()
    assert graph.status.toolTip() == full


def test_neighbourhood_of_a_100000_state_model_is_prompt(qtbot, qloop):
    from explaincheck.gui.views.graph_view import GraphView

    oracle = chain_oracle(100_000)
    graph = GraphView()
    qtbot.addWidget(graph)
    graph.resize(900, 700)
    graph.show()
    started = time.monotonic()
    graph.set_oracle(oracle)
    wait_for(qtbot, lambda: graph.ready, 60)
    seconds = time.monotonic() - started
    print(f"neighbourhood of 100,000 states shown in {seconds:.2f} s")
    assert 1 < len(graph.node_items) < 1000
    # the first neighbourhood follows transitions forwards; predecessors are indexed after
    wait_for(qtbot, lambda: graph.index.has_reverse, 60)
    assert graph.index.neighbours(500) == {499, 501, 507, 493}
    graph.select_state(77_777)
    wait_for(qtbot, lambda: graph.selected_state() == 77_777, 30)
    assert {77_776, 77_770} <= set(graph.node_items)  # predecessors too, once indexed


def test_panning_a_1000_node_graph_keeps_the_event_loop_turning(qtbot, qloop):
    """A 10 ms timer on the GUI thread ticks while the view pans across a 32x32 gridworld
    (1,024 nodes, 3,572 edges, all drawn) at three zoom levels, repainting at every step. The
    longest stall in milliseconds is a figure for benchmarks/gui_panning.py."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    graph = make_big_grid(qtbot)
    view = graph.view
    rect = view.content_rect
    ticks = {"fit": 0, "1:1": 0, "2:1": 0}
    current = ["fit"]
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.__setitem__(current[0], ticks[current[0]] + 1))
    for name, scale in (("fit", None), ("1:1", 1.0), ("2:1", 2.0)):
        if scale is None:
            view.fit()
        else:
            view.resetTransform()
            view.zoom(scale)
        QApplication.processEvents()
        view.auto_fit = False
        current[0] = name
        timer.start()
        for k in range(41):
            view.centerOn(rect.left() + k / 40 * rect.width(), rect.top() + k / 40 * rect.height())
            view.viewport().repaint()
            QApplication.processEvents()
        qtbot.wait(30)  # the timer's due ticks arrive once the loop turns
        timer.stop()
    assert len(graph.node_items) == 1024
    assert all(count >= 1 for count in ticks.values()), ticks


def make_big_grid(qtbot):
    from explaincheck.gui.views.graph_view import GraphView

    graph = GraphView()
    qtbot.addWidget(graph)
    graph.resize(1000, 800)
    graph.show()
    graph.set_oracle(gridworld_oracle(32))
    wait_for(qtbot, lambda: graph.ready, 60)
    return graph


def test_zoomed_out_edges_are_one_overview_path_but_emphasis_stays(qtbot, qloop):
    graph = make_big_grid(qtbot)
    graph.view.fit()
    assert graph.style_.thin  # 32 cells do not fit at half scale
    assert graph.drawing.edge_overview.isVisible()
    assert graph.drawing.edge_overview.path().elementCount() == 2 * len(graph.edge_items)
    assert not any(e.isVisible() for e in graph.edge_items.values())
    graph.overlays.set_overlay("optimal", True)
    shown = {k for k, e in graph.edge_items.items() if e.isVisible()}
    assert shown and shown == {k for k, e in graph.edge_items.items() if e.optimal}
    graph.view.zoom(1.0 / graph.view.transform().m11())  # back to 1:1
    assert not graph.style_.thin and not graph.drawing.edge_overview.isVisible()
    assert all(e.isVisible() for e in graph.edge_items.values())


def test_toggling_an_overlay_repaints_the_cached_nodes(qtbot, qloop):
    """Nodes cache their pictures; an overlay change must redraw them, not reuse the cache."""
    from gui_fakes import GOAL, GRID_CELLS
    from PySide6.QtWidgets import QApplication

    graph = make_graph_small(qtbot, grid_oracle())
    goal = graph.node_items[GRID_CELLS.index(GOAL)]
    point = graph.view.mapFromScene(goal.pos())

    def ring_pixel():  # on the goal ring (radius 1.22 r), right of the node
        QApplication.processEvents()
        image = graph.view.viewport().grab().toImage()
        scale = graph.view.transform().m11()
        return image.pixelColor(point.x() + int(goal.radius * 1.22 * scale), point.y()).name()

    with_ring = ring_pixel()
    graph.overlays.set_overlay("goal", False)
    without = ring_pixel()
    graph.overlays.set_overlay("goal", True)
    assert with_ring != without
    assert ring_pixel() == with_ring


def make_graph_small(qtbot, oracle):
    from explaincheck.gui.views.graph_view import GraphView

    graph = GraphView()
    qtbot.addWidget(graph)
    graph.resize(700, 600)
    graph.show()
    graph.set_oracle(oracle)
    wait_for(qtbot, lambda: graph.ready, 30)
    return graph


def test_oracle_progress_reaches_the_status_line(qtbot, qloop):
    from explaincheck.core.oracle import OracleProgress
    from explaincheck.gui.adapters.model_controller import ModelController

    controller = ModelController(tasks=None, settings=None)  # only the signal is used
    received: list[str] = []
    controller.progress.connect(received.append)
    controller._report(OracleProgress("values", {"states": 1_002_001}, 75.0, 512 << 20))
    assert received == ["Oracle: values (1,002,001 states) · 1:15 · 512 MB"]

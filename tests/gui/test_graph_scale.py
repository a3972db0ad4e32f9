"""The graph view and the oracle's status line on big models: toolbar texts never overlap,
the neighbourhood of a 10^5-state model appears promptly, progress reaches the status bar."""

from __future__ import annotations

import time

from gui_fakes import chain_oracle
from gui_helpers import wait_for


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
        status, depth = graph.status.geometry(), graph.depth_label.geometry()
        assert status.right() < depth.left()
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
    graph.select_state(77_777)
    wait_for(qtbot, lambda: graph.selected_state() == 77_777, 30)


def test_oracle_progress_reaches_the_status_line(qtbot, qloop):
    from explaincheck.core.oracle import OracleProgress
    from explaincheck.gui.model_controller import ModelController

    controller = ModelController(tasks=None, settings=None)  # only the signal is used
    received: list[str] = []
    controller.progress.connect(received.append)
    controller._report(OracleProgress("values", {"states": 1_002_001}, 75.0, 512 << 20))
    assert received == ["Oracle: values (1,002,001 states) · 1:15 · 512 MB"]

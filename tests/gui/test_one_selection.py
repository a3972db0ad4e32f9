"""One selected state everywhere (issue 50, point 8): a click in each view moves every other view
and the inspector, and an edit rebuilt live keeps the state selected (by its valuation)."""

from __future__ import annotations

import re

from gui_helpers import open_env, wait_for
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest


def _click(qtbot, graph, state: int) -> None:
    """A real mouse click on a state's disc."""
    wait_for(qtbot, lambda: graph.ready and state in graph.node_items, 60)
    item = graph.node_items[state]
    where = graph.view.mapFromScene(item.scenePos())
    QTest.mouseClick(graph.view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(where))


def _everywhere(qtbot, window, state: int) -> None:
    """Every view shows ``state``: both graphs' rings, the inspector, the Bellman page, the
    Teach tab's case and graph."""
    bench, teach = window.workbench, window.teach_view
    assert window.inspector.facts is not None and window.inspector.facts.id == state
    assert bench.bellman.state == state
    assert re.match(rf"State {state}\b", bench.bellman.title.text())
    wait_for(qtbot, lambda: window.graph.selected_state() == state, 10)
    assert bench.simulator.selected == state
    wait_for(qtbot, lambda: state in teach.case_states() or not teach.isVisible(), 10)
    teach.follow(state)  # nothing more to do when it already follows
    if teach.isVisible():  # its graph may still be laying a new model out: the ring follows
        assert state in teach.case_states()
        wait_for(qtbot, lambda: teach.graph.selected_state() == state, 30)
    if bench.isVisible():
        wait_for(qtbot, lambda: bench.graph.selected_state() == state, 30)
    assert window.model.selection.state == state  # the one selection all of them follow


def test_a_click_in_each_view_moves_every_other_view(qtbot, window):
    oracle = open_env(qtbot, window, "frozen_lake")
    bench, teach = window.workbench, window.teach_view
    wait_for(qtbot, lambda: bench.bellman.transitions is not None, 60)
    _everywhere(qtbot, window, oracle.model.initial)

    # the main graph
    window.show_tab("graph")
    _click(qtbot, window.graph, 8)
    _everywhere(qtbot, window, 8)

    # the Workbench's own graph: the Bellman page, the inspector and the main graph follow
    window.show_tab("workbench")
    bench.pages.setCurrentWidget(bench.bellman)
    _click(qtbot, bench.graph, 13)
    _everywhere(qtbot, window, 13)

    # a successor on the Bellman page
    button = next(b for b in bench.bellman.successor_buttons if b.text().startswith("→ 10:"))
    button.click()  # a real click on the successor's button
    _everywhere(qtbot, window, 10)

    # the simulator's walk
    bench.pages.setCurrentWidget(bench.simulator)
    bench.simulator.restart(None)
    _everywhere(qtbot, window, oracle.model.initial)
    bench.simulator.chooser.setCurrentIndex(bench.simulator.chooser.findData("optimal"))
    bench.simulator.step()
    walked = bench.simulator.simulation.current
    _everywhere(qtbot, window, walked)

    # the Teach tab: it goes to the case of the selected state when shown, and its own clicks
    # and cases move the rest
    window.show_tab("teach")
    wait_for(qtbot, lambda: teach.ready and teach.lesson is not None, 60)
    _everywhere(qtbot, window, walked)
    _click(qtbot, teach.graph, 9)
    _everywhere(qtbot, window, 9)
    teach.move_by(1)
    moved = teach.case_states()[0]
    assert moved != 9
    _everywhere(qtbot, window, moved)

    # the inspector's successors (double-click)
    successors = window.inspector.successors
    child = successors.topLevelItem(0).child(0)
    target = child.data(0, Qt.ItemDataRole.UserRole)
    successors.itemDoubleClicked.emit(child, 0)
    _everywhere(qtbot, window, target)


def test_a_live_rebuild_keeps_the_selected_state(qtbot, window):
    open_env(qtbot, window, "frozen_lake")
    bench = window.workbench
    window.show_tab("graph")
    _click(qtbot, window.graph, 11)
    _everywhere(qtbot, window, 11)
    before = window.model.oracle
    valuation = before.state(11).valuation
    window.show_tab("workbench")
    page = bench.editor
    bench.pages.setCurrentWidget(page)
    page.load_button.click()
    text = page.editor.toPlainText()
    start = "c : [0..N - 1] init 0;"
    assert start in text
    # the walk now starts one tile to the right: Storm numbers the states anew (row 2,
    # column 2 was state 11, it is state 8 now), and the selection stays on that tile
    page.editor.setPlainText(text.replace(start, "c : [0..N - 1] init 1;"))
    wait_for(qtbot, lambda: window.model.oracle is not before, 60)
    wait_for(qtbot, lambda: window.graph.ready and window.graph.oracle is window.model.oracle, 60)
    kept = window.model.selection.state
    assert window.model.oracle.state(kept).valuation == valuation and kept != 11
    _everywhere(qtbot, window, kept)

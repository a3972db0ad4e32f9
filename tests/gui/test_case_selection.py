"""Clicking rows of the Results table moves the graph's selection ring with the inspector."""

from __future__ import annotations

from gui_helpers import open_env, wait_for


def test_selection_ring_follows_the_selected_row(qtbot, window):
    oracle = open_env(qtbot, window, "frozen_lake")
    first, second = oracle.model.initial, oracle.bottlenecks[0]
    assert first != second
    window.graph.select_state(first)
    assert window.graph.selected_state() == first
    base = {"environment": "frozen_lake", "model_hash": oracle.model.content_hash}
    base |= {"llm": "random", "category": "bottleneck"}
    window.results.add(
        [
            dict(base, states=[second], verdict="fail", delta=0.5, reply="no"),
            dict(base, states=[first], verdict="pass", delta=0.1, reply="yes"),
        ]
    )
    panel = window.results_view.executions
    window.show_tab("results")
    panel.table.sortByColumn(0, panel.table.horizontalHeader().sortIndicatorOrder())
    rows = {panel.model.row(panel.proxy.source_row(i)).states[0]: i for i in range(2)}
    panel.select_row(rows[second])
    wait_for(qtbot, lambda: window.graph.selected_state() == second, 10)
    assert window.inspector.facts.id == second
    assert {i for i, n in window.graph.node_items.items() if n.highlighted} == {second}
    panel.select_row(rows[first])
    wait_for(qtbot, lambda: window.graph.selected_state() == first, 10)
    assert window.inspector.facts.id == first

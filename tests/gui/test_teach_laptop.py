"""Teach on a 1366x768 laptop: A+ on the bar (not in its overflow), the legend clear of the
nodes, and the cards scroll rather than push the window taller."""

from __future__ import annotations

from gui_helpers import open_env, wait_for

LAPTOP = (1366, 740)


def test_teach_bar_and_graph_fit_a_laptop(qtbot, window):
    window.resize(*LAPTOP)
    open_env(qtbot, window, "frozen_lake")
    window.show_tab("teach")
    teach = window.teach_view
    wait_for(qtbot, lambda: teach.ready and teach.lesson is not None, 60)
    teach.reveal_all()
    wait_for(qtbot, lambda: teach.graph.ready, 60)
    qtbot.wait(100)
    bar = teach.zoom_in.parentWidget()
    for button in (teach.reveal_button, teach.zoom_out, teach.zoom_in):
        assert button.isVisible(), button.text()
        assert bar.rect().contains(button.geometry().topRight()), button.text()
    view = teach.graph.view
    legend = view.legend.geometry()
    for state_id, item in teach.graph.node_items.items():
        if not item.isVisible():
            continue
        node = view.mapFromScene(item.sceneBoundingRect()).boundingRect()
        assert not node.intersects(legend), state_id
    teach.scale_text(2.5)  # the largest lecture text scrolls inside the cards
    qtbot.wait(50)
    assert window.minimumSizeHint().height() <= LAPTOP[1]

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


def test_a_factors_case_is_asked_live(qtbot, window):
    """Teach's live answer to a factors case is asked with the oracle that has the factor
    truth (the window's own has none: asking failed)."""
    open_env(qtbot, window, "frozen_lake")
    window.show_tab("teach")
    teach = window.teach_view
    teach.category.setCurrentIndex(teach.category.findData("factors"))
    wait_for(qtbot, lambda: teach.lesson is not None and teach.lesson.case.category == "factors")
    wait_for(qtbot, lambda: teach.ready, 60)
    teach.llm.setCurrentIndex(teach.llm.findData("random"))
    teach.reveal_all()
    wait_for(qtbot, lambda: "asked live" in teach.reply_card.body.text(), 60)
    assert "could not answer" not in teach.reply_card.body.text()

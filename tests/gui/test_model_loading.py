"""Opening models in the window: real oracles, highlights on the right states, errors shown in
the window (never a crash), undefined constants asked for, and a responsive GUI thread."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for


@pytest.mark.parametrize("env", ["frozen_lake", "wolf_goat_cabbage"])
def test_builtin_environment_graph(qtbot, window, env):
    oracle = open_env(qtbot, window, env)
    graph = window.graph
    assert len(graph.node_items) == len(oracle.states) == oracle.model.states
    assert graph.hidden_count == 0
    bottlenecks = {i for i, n in graph.node_items.items() if "bottleneck" in n.visible_marks()}
    dead_ends = {i for i, n in graph.node_items.items() if "dead_end" in n.visible_marks()}
    assert bottlenecks == set(oracle.bottlenecks)
    assert dead_ends == set(oracle.dead_ends)
    assert bottlenecks, "both environments have bottlenecks (paper section 6.1)"
    assert len(graph.edge_items) > 0
    # the inspector starts on the initial state
    assert window.inspector.facts is not None and window.inspector.facts.is_initial
    assert "states" in window.status_line.oracle.text()


def test_frozen_lake_bottleneck_is_next_to_the_goal(qtbot, window):
    oracle = open_env(qtbot, window, "frozen_lake")
    (bottleneck,) = oracle.bottlenecks
    assert oracle.state(bottleneck).valuation == {"c": 2, "r": 3}
    # the grid layout puts it left of the goal, on the bottom row
    goal = next(s.id for s in oracle.states if s.is_goal)
    b, g = window.graph.node_items[bottleneck].pos(), window.graph.node_items[goal].pos()
    assert b.y() == g.y() and b.x() < g.x()


def test_clicking_a_state_fills_the_inspector(qtbot, window):
    from PySide6.QtCore import Qt

    oracle = open_env(qtbot, window, "frozen_lake")
    (bottleneck,) = oracle.bottlenecks
    item = window.graph.node_items[bottleneck]
    window.graph.view.centerOn(item)
    point = window.graph.view.mapFromScene(item.scenePos())
    qtbot.mouseClick(window.graph.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    wait_for(
        qtbot,
        lambda: window.inspector.facts is not None and window.inspector.facts.id == bottleneck,
        10,
    )
    assert "bottleneck" in window.inspector.fields["flags"].text()
    facts = oracle.state(bottleneck)
    rows = window.inspector.bars.rows()
    assert [a for a, _, _ in rows] == list(facts.q)
    assert {a for a, _, m in rows if m in ("best", "both")} == set(facts.best)


def test_broken_prism_file_shows_error(qtbot, window, tmp_path):
    broken = tmp_path / "broken.prism"
    broken.write_text(
        "mdp\n\nmodule m\n  x : [0..3] init 0;\n  [go] x < 3 -> (x' = x + ) ;\nendmodule\n"
    )
    window.model.open_spec(str(broken))
    wait_for(qtbot, lambda: window.model_view.error_frame.isVisible(), 60)
    message = window.model_view.error.text()
    assert "line" in message.lower()
    assert window.model_view.error_source.text().strip().startswith("5 |")
    assert window.isVisible() and window.model.oracle is None
    assert not window.model.busy


def test_missing_file_and_unknown_environment(qtbot, window, tmp_path):
    window.model.open_spec(str(tmp_path / "nowhere.prism"))
    wait_for(qtbot, lambda: window.model_view.error_frame.isVisible(), 30)
    window.model_view.error_frame.hide()
    window.model.open_spec("no_such_environment")
    wait_for(qtbot, lambda: window.model_view.error_frame.isVisible(), 30)
    assert window.isVisible()


def test_undefined_constants_are_asked_for(qtbot, window, tmp_path):
    model = tmp_path / "walk.prism"
    model.write_text(
        "mdp\nconst int N;\nconst double p;\n"
        "module walk\n  x : [0..N] init 0;\n"
        "  [step] x < N -> p : (x' = x + 1) + 1 - p : (x' = x);\n"
        "  [stay] x < N -> 1 : (x' = x);\nendmodule\n"
        'label "goal" = x = N;\n'
    )
    window.model.open_spec(str(model))
    wait_for(qtbot, lambda: window.model_presenter.constants_dialog is not None, 30)
    dialog = window.model_presenter.constants_dialog
    assert set(dialog.fields) == {"N", "p"}
    dialog.fields["N"].setText("3")
    dialog.fields["p"].setText("0.5")
    dialog.accept()
    wait_for(qtbot, lambda: window.model.oracle is not None and window.graph.ready, 60)
    assert len(window.graph.node_items) == 4
    assert window.model.constants in ("N=3,p=0.5", "p=0.5,N=3")
    assert window.model_view.goal.currentText() == "goal"


def test_gui_stays_responsive_while_a_large_oracle_builds(qtbot, window):
    """A timer keeps ticking on the GUI thread while Storm works in its child process: a GUI
    thread that waited for the build would deliver no tick before the oracle arrived. (How long
    the GUI stalls is a figure for benchmarks/gui_large_model.py, not a test.)"""
    from PySide6.QtCore import QTimer

    ticks = {"while busy": 0}
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(
        lambda: ticks.__setitem__("while busy", ticks["while busy"] + window.model.busy)
    )
    timer.start()
    from explaincheck.core.environments.registry import load_builtin

    big = load_builtin("frozen_lake", constants="N=43")  # 1849 states, not cached yet
    window.model.open_environment(big)
    wait_for(qtbot, lambda: window.model.busy, 30)
    wait_for(qtbot, lambda: window.model.oracle is not None and window.graph.ready, 300)
    timer.stop()
    assert not window.model.oracle.from_cache, "a cached oracle would prove nothing here"
    assert ticks["while busy"] >= 5, f"only {ticks['while busy']} ticks while the oracle built"
    # too big to draw whole: a neighbourhood of the initial state, the rest counted as hidden
    graph = window.graph
    assert graph.hidden_count > 0
    assert len(graph.node_items) + graph.hidden_count == 43 * 43
    assert f"{graph.hidden_count} of {43 * 43} states hidden" in graph.row.hidden_label.text()
    assert window.model.oracle.model.initial in graph.node_items


def test_cancel_a_build(qtbot, window):
    from explaincheck.core.environments.registry import load_builtin

    big = load_builtin("frozen_lake", constants="N=47")
    window.model.open_environment(big)
    wait_for(qtbot, lambda: window.model.busy, 30)
    window.model_view.cancel_button.click()
    wait_for(qtbot, lambda: not window.model.busy, 30)
    assert window.model.oracle is None
    assert "Cancelled" in window.model_view.status.text()

"""A PRISM file opened after a built-in: the window offers the file's own labels, speaks in its
own words (no --goal, no "fix the file" for a file that is fine), and shows nothing of the old
model (issue 39)."""

from __future__ import annotations

from gui_helpers import open_env, wait_for

NO_GOAL_LABEL = """mdp
module m
  x : [0..3] init 0;
  [go] x < 3 -> 0.8 : (x'=x+1) + 0.2 : (x'=0);
  [stay] x < 3 -> 1 : (x'=x);
endmodule
label "done" = x=3;
label "start" = x=0;
"""


def test_a_file_without_a_goal_label_offers_its_own_labels(qtbot, window, tmp_path):
    open_env(qtbot, window, "frozen_lake")
    window.inspector.show_state(5)
    path = tmp_path / "climb.prism"
    path.write_text(NO_GOAL_LABEL)
    window.model.open_spec(str(path))
    wait_for(qtbot, lambda: window.canvas_error.isVisible(), 60)
    overlay = window.canvas_error
    assert overlay.title.text() == "Choose the goal"
    message = overlay.message.text()
    assert 'this model has no label "goal"' in message and "done, start" in message
    assert "--goal" not in message and "Fix the file" not in overlay.hint.text()
    assert "Goal box" in overlay.hint.text()
    # the old model's labels, title and inspector are gone
    goal_box = window.model_view.goal
    assert [goal_box.itemText(i) for i in range(goal_box.count())] == ["done", "start"]
    assert goal_box.currentText() == ""
    assert window.windowTitle() == "explaincheck — climb"
    assert window.inspector.facts is None
    # choosing a label and building gives the file's oracle
    goal_box.setCurrentText("done")
    window.model_view.rebuild()
    wait_for(qtbot, lambda: window.model.oracle is not None and window.graph.ready, 120)
    assert window.model.goal_label == "done"
    assert abs(window.model.oracle.states[window.model.oracle.model.initial].value - 1.0) < 1e-9
    assert not overlay.isVisible()


def test_build_without_a_chosen_goal_asks_again(qtbot, window, tmp_path):
    path = tmp_path / "climb.prism"
    path.write_text(NO_GOAL_LABEL)
    window.model.open_spec(str(path))
    wait_for(qtbot, lambda: window.canvas_error.isVisible(), 60)
    window.canvas_error.hide()
    window.model_view.rebuild()
    wait_for(qtbot, lambda: window.canvas_error.isVisible(), 30)
    assert window.canvas_error.title.text() == "Choose the goal"

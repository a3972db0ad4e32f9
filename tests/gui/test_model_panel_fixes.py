"""The model panel and the canvas: a PRISM file deselects the built-in list, a broken model's
error is shown on the canvas (position said once, long source line cut), and valuations read
in the environment's order and names."""

from __future__ import annotations

from gui_helpers import open_env, wait_for

from explaincheck.core.errors import ModelError
from explaincheck.core.workspace.presentation.model_errors import EXCERPT_WIDTH, error_text
from explaincheck.core.workspace.presentation.valuation import valuation_text

WALK = """mdp
module m
  x : [0..2] init 0;
  [go] x < 2 -> 0.5 : (x' = x + 1) + 0.5 : (x' = x);
  [stay] true -> (x' = x);
endmodule
label "goal" = x = 2;
"""


def test_opening_a_prism_file_clears_the_builtin_selection(qtbot, window, tmp_path):
    window.start()
    wait_for(qtbot, lambda: window.model_view.builtin.count() > 0, 60)
    view = window.model_view
    assert view.builtin.currentItem() is not None  # the first one is described at start
    assert view.builtin_description.text()
    model = tmp_path / "walk.prism"
    model.write_text(WALK)
    window.model.open_spec(str(model))
    wait_for(qtbot, lambda: window.model.oracle is not None and window.tasks.idle, 120)
    assert view.builtin.currentItem() is None
    assert view.builtin.selectedItems() == []
    assert view.builtin_description.text() == ""
    assert view.title.text() != "Frozen Lake"


def test_broken_model_error_is_on_the_canvas(qtbot, window, tmp_path):
    long_tail = "  // " + "z" * 3000
    broken = tmp_path / "grid3_bad.prism"
    broken.write_text(
        "mdp\n\nmodule m\n  x : [0..3] init 0;\n  [go] x < 3 -> (x' = x + ) ;"
        + long_tail
        + "\nendmodule\n"
    )
    width_before = window.model_view.sizeHint().width()
    window.model.open_spec(str(broken))
    overlay = window.canvas_error
    wait_for(qtbot, overlay.isVisible, 60)
    assert window.tabs.currentWidget() is window.graph
    message = overlay.message.text()
    assert message.startswith("grid3_bad.prism, line 5, column")
    assert ":5:" not in message  # the position is not printed twice
    source = overlay.source.text().split("\n")
    assert source[0].startswith("   5 | ")
    assert len(source[0]) <= len("   5 | ") + EXCERPT_WIDTH
    assert source[1].rstrip().endswith("^")
    # the canvas no longer invites opening a model, and the panel did not grow
    texts = [i.toPlainText() for i in window.graph.scene.items() if hasattr(i, "toPlainText")]
    assert not any("Open a built-in" in t for t in texts)
    assert window.model_view.sizeHint().width() <= width_before + 5
    assert overlay.width() <= window.graph.width()
    # opening a good model takes the message away
    open_env(qtbot, window, "frozen_lake")
    assert not overlay.isVisible()


def test_error_text_says_the_position_once():
    error = ModelError("/tmp/x/grid3_bad.prism:13:30: syntax error: bad", line=13, column=30)
    message, _ = error_text(error)
    assert message == "grid3_bad.prism, line 13, column 30: syntax error: bad"
    message, _ = error_text(ModelError("unexpected token at 5:25"))
    assert message == "unexpected token at 5:25"
    message, _ = error_text(ModelError("no such label", line=2))
    assert message == "line 2: no such label"


def test_valuation_in_the_environments_order_and_names(qtbot, window):
    oracle = open_env(qtbot, window, "frozen_lake")
    environment = window.model.environment
    assert list(environment.variables) == ["r", "c"]
    state = next(s for s in oracle.states if s.valuation["r"] != s.valuation["c"])
    window.inspector.show_state(state.id)
    r, c = state.valuation["r"], state.valuation["c"]
    assert window.inspector.fields["valuation"].text() == f"row (r) = {r}, column (c) = {c}"
    assert valuation_text({"c": 2, "r": 3, "k": 1}, {"r": "row", "c": "column"}) == (
        "row (r) = 3, column (c) = 2, k = 1"
    )
    assert valuation_text({"b": 1, "a": 2}) == "b = 1, a = 2"


def test_a_broken_file_at_start_leaves_no_builtin_selected(qtbot, window, tmp_path):
    broken = tmp_path / "bad.prism"
    broken.write_text("mdp\nmodule m\n x : [0..1] init 0;\n [a] x=0 -> (x'=);\nendmodule\n")
    window.start(env=str(broken))
    wait_for(qtbot, window.canvas_error.isVisible, 60)
    wait_for(qtbot, lambda: window.model_view.builtin.count() > 0, 60)
    assert window.model_view.builtin.currentItem() is None
    assert window.model_view.builtin_description.text() == ""

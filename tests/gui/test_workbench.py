"""The Workbench tab: the editor's live check, the simulator, the Bellman view and sweeps."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

from gui_helpers import open_env, wait_for

from explaincheck.core.paths import environments_dir

MODELS = Path(__file__).resolve().parents[1] / "models"
FLIP = MODELS / "flip.prism"


def _open_flip(qtbot, window, path=FLIP, constants="p=0.3"):
    """flip.prism leaves p undefined: open it with p = 0.3 (no constants dialog)."""
    from explaincheck.core.environments.registry import resolve

    window.model.open_environment(resolve(str(path), constants=constants))
    wait_for(qtbot, lambda: window.model.oracle is not None and window.graph.ready, 60)
    return window.model.oracle


def _lake(qtbot, window):
    oracle = open_env(qtbot, window, "frozen_lake")
    wait_for(qtbot, lambda: window.workbench.bellman.transitions is not None)
    return oracle


def test_editor_error_at_line_and_column_then_cleared(qtbot, window, tmp_path):
    model = tmp_path / "flip.prism"
    model.write_text(FLIP.read_text())
    _open_flip(qtbot, window, model)
    page = window.workbench.editor
    window.show_tab("workbench")
    window.workbench.pages.setCurrentWidget(page)
    page.load_button.click()
    assert page.source_path == str(model) and not page.builtin
    good = page.editor.toPlainText()
    broken = good.replace("s : [0..2] init 0;", "s : [0..2] init 0")  # line 5: ';' missing
    page.editor.setPlainText(broken)  # typing: the check follows about a second later
    wait_for(qtbot, lambda: page.editor.underlined() is not None, 30)
    line, column, text = page.editor.underlined()
    assert page.editor.error is not None
    reported_line, reported_column, message = page.editor.error
    assert (line, column) == (reported_line, reported_column)
    assert line == 6  # Storm sees the missing ';' at the next declaration's first token
    assert text == broken.splitlines()[line - 1][column - 1 : column - 1 + len(text)]
    assert "syntax error" in message and str(tmp_path) not in page.status.text()
    page.editor.setPlainText(good)
    wait_for(qtbot, lambda: page.editor.underlined() is None and page.editor.error is None, 30)
    wait_for(qtbot, lambda: "No errors" in page.status.text(), 60)


def test_graph_follows_an_edit(qtbot, window, tmp_path):
    model = tmp_path / "flip.prism"
    model.write_text(FLIP.read_text())
    _open_flip(qtbot, window, model)
    assert window.model.oracle.model.states == 3
    page = window.workbench.editor
    page.load_button.click()
    text = page.editor.toPlainText().replace("s : [0..2]", "s : [0..3]")
    text = text.replace(
        "[risky] s=0 -> p : (s'=1) + (1-p) : (s'=2);",
        "[risky] s=0 -> p : (s'=1) + (1-p) : (s'=3);\n  [retry] s=3 -> 1 : (s'=0);",
    )
    page.editor.setPlainText(text)
    wait_for(
        qtbot,
        lambda: window.model.oracle is not None and window.model.oracle.model.states == 4,
        60,
    )
    wait_for(qtbot, lambda: window.graph.ready and len(window.graph.node_items) == 4, 60)
    assert model.read_text() == FLIP.read_text()  # checks run on a copy; Save writes
    assert window.model.oracle.state(0).best == ("risky",)  # retrying makes risky win


def test_a_new_constant_without_a_value_says_where_to_give_it(qtbot, window, tmp_path):
    """A teacher's `const double slip;` typed into the lake: the editor names the Model panel's
    Constants (the command line's --const means nothing there), and once Build oracle builds
    the copy with slip given, the error is gone."""
    _lake(qtbot, window)
    page = window.workbench.editor
    page.load_button.click()
    text = page.editor.toPlainText()
    right = "[right] !over -> AHEAD/3 : (c' = go_right) + SIDE/3 : (r' = go_up) + SIDE/3"
    assert right in text
    slips = "[right] !over -> 1-slip : (c' = go_right) + slip/2 : (r' = go_up) + slip/2"
    text = text.replace("const int SIDE;", "const int SIDE;\nconst double slip;")
    page.editor.setPlainText(text.replace(right, slips))
    wait_for(qtbot, lambda: "slip has no value" in page.status.text(), 60)
    assert "Model panel's Constants" in page.status.text() and "--const" not in page.status.text()
    before = window.model.oracle
    window.model.rebuild(constants=f"{window.model.constants},slip=0.1")
    wait_for(qtbot, lambda: window.model.oracle is not before, 60)
    assert window.model.oracle.model.initial is not None
    wait_for(qtbot, lambda: page.status.text().startswith("No errors"), 30)
    sweeps = window.workbench.sweeps  # the probability offered first, its whole range
    assert sweeps.constant.currentText() == "slip" and sweeps.constant.count() > 1
    assert (sweeps.low.text(), sweeps.high.text()) == ("0", "1")


def test_builtin_opens_as_a_copy(qtbot, window, tmp_path):
    _lake(qtbot, window)
    page = window.workbench.editor
    page.load_button.click()
    assert page.builtin and page.source_path is None
    original = (environments_dir() / "frozen_lake" / "model.prism").read_text()
    assert page.editor.toPlainText() == original
    page.save_requested.emit("changed", str(environments_dir() / "frozen_lake" / "model.prism"))
    assert "Not saved" in page.status.text()
    assert (environments_dir() / "frozen_lake" / "model.prism").read_text() == original
    target = tmp_path / "copy.prism"
    page.save_requested.emit(page.editor.toPlainText(), str(target))
    assert target.read_text() == original


def test_seeded_path_is_reproducible_with_hand_probability(qtbot, window):
    oracle = _lake(qtbot, window)
    simulator = window.workbench.simulator
    simulator.seed.setValue(11)
    simulator.chooser.setCurrentIndex(simulator.chooser.findData("optimal"))

    def walk():
        simulator.restart(None)
        for _ in range(4):
            simulator.step()
        return simulator.simulation.path, simulator.simulation.exact_probability()

    first, p_first = walk()
    again, p_again = walk()
    assert first == again and len(first) == 5 and p_first == p_again
    hand = Fraction(1)
    for a, b in itertools.pairwise(first):
        hand *= Fraction(
            round(3 * oracle.state(a).successors[oracle.state(a).optimal_action][b]), 3
        )
    assert p_first == hand
    assert f"= {hand}" in simulator.probability.text() and "seed 11" in simulator.probability.text()
    # the path is drawn on the graph
    on_path = {s for s, item in window.graph.node_items.items() if item.on_path}
    assert on_path == set(first)
    simulator.back_button.click()
    assert simulator.simulation.path == first[:-1]
    simulator.forward_button.click()
    assert simulator.simulation.path == first


def test_user_chosen_outcome_and_k_paths(qtbot, window):
    oracle = _lake(qtbot, window)
    simulator = window.workbench.simulator
    simulator.restart(None)
    simulator.chooser.setCurrentIndex(simulator.chooser.findData("you"))
    simulator.action.setCurrentText("down")
    target = max(oracle.state(0).successors["down"])
    simulator.outcome.setCurrentIndex(simulator.outcome.findData(target))
    simulator.step()
    step = simulator.simulation.taken[-1]
    assert (step.action, step.successor, step.sampled) == ("down", target, False)
    # the next Step takes the same action again where it is offered (it went back to "left")
    assert "down" in simulator.simulation.actions()
    assert simulator.action.currentText() == "down"
    simulator.paths_button.click()
    wait_for(
        qtbot, lambda: simulator.paths.count() == 5 and "P =" in simulator.paths.item(0).text()
    )
    assert simulator.paths.item(0).text().startswith("1. P = ")


def test_bellman_view_of_state_13(qtbot, window):
    _lake(qtbot, window)
    page = window.workbench.bellman
    page.show_state(13)
    assert "V(13) = 16/17" in page.result.text() and "exact fractions" in page.result.text()
    rows = {
        page.table.item(r, 0).text(): page.table.item(r, 1).text().splitlines()
        for r in range(page.table.rowCount())
    }
    assert rows["down"] == [
        "1/3·V(10) + 1/3·V(13) + 1/3·V(15)",
        "= 1/3·15/17 + 1/3·16/17 + 1/3·1",
        "= 16/17  ◀ max",
    ]
    assert [rows[a][-1] for a in ("left", "right", "up")] == ["= 44/51", "= 46/51", "= 15/17"]
    page.danger_button.setChecked(True)
    assert "D(13) = 1/28" in page.result.text()
    page.value_button.setChecked(True)
    # a click on a successor goes there (and tells the window)
    seen = []
    page.state_requested.connect(seen.append)
    button = next(b for b in page.successor_buttons if b.text().startswith("→ 10:"))
    button.click()
    assert page.state == 10 and seen == [10] and "V(10) = 15/17" in page.result.text()
    page.pi_button.click()
    assert page.pi_title.text().startswith("Round 1 of ") and page.tabs.currentIndex() == 1
    assert page.round_text().startswith("Round 1 of ")
    assert page.pi_table.rowCount() == 16 and page.pi_table.item(0, 0).text() == "0"
    page.show_round(len(page.rounds) - 1)
    assert "σ is optimal" in page.pi_title.text()
    assert "this policy is optimal" in page.round_text()
    last = page.rounds[-1]
    assert page.pi_table.item(13, 1).text() == last.policy[13] == "down"
    assert page.pi_table.item(13, 2).text() == "16/17" and page.pi_table.item(13, 3).text() == ""


def test_sweep_tipping_point_at_one_half(qtbot, window):
    _open_flip(qtbot, window)
    page = window.workbench.sweeps
    wait_for(qtbot, lambda: page.constant.count() == 1)
    assert page.constant.currentText() == "p"
    page.low.setText("0.05")
    page.high.setText("0.95")
    page.step.setText("0.3")
    page.states.setText("0")
    page.run_button.click()
    wait_for(qtbot, lambda: page.sweep is not None, 120)
    (tip,) = page.sweep.tipping_points
    assert tip.at == Fraction(1, 2) and tip.method == "parametric"
    assert "at 1/2 = 0.5 (parametric)" in page.tipping.toPlainText()
    assert page.canvas is not None and page.table.rowCount() == 4


def test_the_sweep_offers_a_probabilitys_whole_range_and_follows_the_flipping_state(qtbot, window):
    """Issue 50, point 9: on a model with ``const double slip;`` (in an update's probability)
    the page offers 0 to 1 and says why; Sweep with what is offered finds the flip at 0.0975
    and follows the state where A* flips (the open model's state 0, drawn once)."""
    _open_flip(qtbot, window, MODELS / "slip.prism", constants="slip=0.3")
    page = window.workbench.sweeps
    wait_for(qtbot, lambda: page.constant.currentText() == "slip")
    assert (page.low.text(), page.high.text(), page.step.text()) == ("0", "1", "0.05")
    assert "probability" in page.status.text() and "(1 - slip)" in page.constant.toolTip()
    assert page.states.text() == ""
    page.run_button.click()
    wait_for(qtbot, lambda: page.sweep is not None, 300)
    (tip,) = page.sweep.tipping_points
    assert tip.at == Fraction(39, 400) and tip.before == ("dash",)
    assert "at 39/400 = 0.0975 (parametric)" in page.tipping.toPlainText()
    assert "following the states where A* flips: 0" in page.status.text()
    assert page.table.rowCount() == 21 and page.table.horizontalHeaderItem(2).text() == "A*(0)"
    lines = page.canvas.figure.axes[0].get_lines()
    labels = [line.get_label() for line in lines if not line.get_label().startswith("_")]
    assert labels == ["V(initial) = V(0)"]  # state 0 is the initial state: drawn once


def test_handout_holds_path_bellman_and_case(qtbot, window, tmp_path):
    _lake(qtbot, window)
    wait_for(qtbot, lambda: window.teach_view.lesson is not None, 60)
    bench = window.workbench
    bench.add_teach_case()
    bench.simulator.chooser.setCurrentIndex(bench.simulator.chooser.findData("optimal"))
    bench.simulator.step()
    bench.bellman.show_state(13)
    out = tmp_path / "lesson.html"
    bench.save_handout(str(out))
    page = out.read_text()
    assert "default-src 'none'" in page
    assert "1/3·15/17 + 1/3·16/17 + 1/3·1 = 16/17" in page
    assert "A path from state 0" in page and "Question:" in page


def test_an_llm_and_a_loaded_policy_choose(qtbot, window):
    from explaincheck.core.workbench.simulator import policy_chooser

    oracle = _lake(qtbot, window)
    simulator = window.workbench.simulator
    simulator.restart(None)
    simulator.chooser.setCurrentIndex(simulator.chooser.findData("llm"))
    simulator.llm_spec.setText("oracle")  # the reference answerer: asked like any LLM
    simulator.step()
    wait_for(qtbot, lambda: len(simulator.simulation.taken) == 1, 60)
    step = simulator.simulation.taken[0]
    assert step.chosen_by == "llm" and step.action in oracle.state(0).best
    simulator.set_loaded_policy(policy_chooser({s.id: "up" for s in oracle.states}), "all up")
    simulator.chooser.setCurrentIndex(simulator.chooser.findData("policy"))
    assert simulator.chooser.currentText() == "all up"
    simulator.step()
    assert simulator.simulation.taken[-1].action == "up"
    assert simulator.simulation.taken[-1].chosen_by == "policy"


def test_editor_undo_and_reopening_the_checked_copy(qtbot, window, tmp_path):
    model = tmp_path / "flip.prism"
    model.write_text(FLIP.read_text())
    _open_flip(qtbot, window, model)
    page = window.workbench.editor
    page.load_button.click()
    original = page.editor.toPlainText()
    page.editor.appendPlainText("// a note")
    page.editor.undo()
    assert page.editor.toPlainText() == original
    page.editor.appendPlainText('label "start" = s=0;')
    wait_for(qtbot, lambda: window.model.environment.model_path != str(model), 60)
    wait_for(qtbot, lambda: "start" in window.model.oracle.model.labels, 60)
    page.load_button.click()  # the open model is the checked copy: keep editing, same file
    assert "Already editing" in page.status.text() and page.source_path == str(model)
    page.save()
    assert model.read_text().endswith('label "start" = s=0;')

"""The Teach view covers pair and subset questions: every state of the case is highlighted and
the oracle's reasoning is given for each, with the values the oracle computed."""

from __future__ import annotations

from gui_helpers import open_env, wait_for

from explaincheck.core.taxonomy.state_letters import letters
from explaincheck.core.taxonomy.teaching import explain_many, taught


def choose(qtbot, teach, category: str) -> None:
    teach.category.setCurrentIndex(teach.category.findData(category))
    wait_for(
        qtbot,
        lambda: teach.ready and teach.lesson is not None and teach.lesson.case.category == category,
        60,
    )


def highlighted(graph) -> set[int]:
    return {i for i, n in graph.node_items.items() if n.highlighted}


def test_the_category_box_offers_every_taught_category(qtbot, window):
    box = window.teach_view.category
    offered = [(box.itemText(i), box.itemData(i)) for i in range(box.count())]
    assert offered == [(c.name, c.id) for c in taught()]


def test_pair_question_shows_both_states_and_their_values(qtbot, window):
    oracle = open_env(qtbot, window, "frozen_lake")
    teach = window.teach_view
    window.show_tab("teach")
    choose(qtbot, teach, "more_promising")
    a, b = teach.lesson.case.states
    wait_for(qtbot, lambda: highlighted(teach.graph) == {a, b}, 30)
    # the ring is on the window's one selected state, the case's first (issue 50, point 8)
    assert teach.graph.selected_state() == window.model.selection.state == a
    name_a, name_b = letters(2)  # as the prompt names them
    question = teach.question_card.body.text()
    assert f"State {name_a} (id {a})" in question and f"State {name_b} (id {b})" in question
    teach.reveal()
    why = teach.oracle_card.body.text()
    fa, fb = oracle.state(a), oracle.state(b)
    assert f"{name_a} (state {a}): V = Pmax[F goal] = {fa.value:.4g}" in why
    assert f"{name_b} (state {b}): V = Pmax[F goal] = {fb.value:.4g}" in why
    better = name_a if fa.value > fb.value else name_b
    assert f"Answer: state {better}" in why
    assert f"{better} is more promising" in why
    # stepping on moves both highlights to the next pair
    teach.move_by(1)
    wait_for(qtbot, lambda: highlighted(teach.graph) == set(teach.lesson.case.states), 30)
    assert teach.lesson.case.states != (a, b)


def test_which_bottleneck_and_subsets(qtbot, window):
    oracle = open_env(qtbot, window, "frozen_lake")
    (bottleneck,) = oracle.bottlenecks
    teach = window.teach_view
    window.show_tab("teach")
    choose(qtbot, teach, "which_bottleneck")
    states = teach.lesson.case.states
    assert bottleneck in states and len(states) == 2
    assert bottleneck in teach.lesson.path
    teach.reveal()
    assert f"(state {bottleneck}): a bottleneck; centrality" in teach.oracle_card.body.text()
    choose(qtbot, teach, "subset_dead_end")
    states = teach.lesson.case.states
    assert len(states) >= 3
    wait_for(qtbot, lambda: highlighted(teach.graph) == set(states), 30)
    lines, _ = explain_many(oracle, "subset_dead_end", states)
    dead = [oracle.state(s).dead_end for s in states]
    for line, is_dead in zip(lines, dead, strict=False):
        assert line.endswith("a dead end") and (("not a dead end" in line) != is_dead)
    assert lines[-1].startswith("Yes" if any(dead) else "No")

"""The Teach view shows, beside the oracle's answer, what a chosen flawed explainer answers and
the values behind it: on frozen_lake's start state, ``flaw:determinised`` (which ignores the
slipping) cannot give the true probability 14/17."""

from __future__ import annotations

from fractions import Fraction

from gui_helpers import open_env, wait_for


def test_teach_shows_a_flawed_answer_that_differs_from_the_oracle(qtbot, window):
    open_env(qtbot, window, "frozen_lake")
    teach = window.teach_view
    window.show_tab("teach")
    teach.category.setCurrentIndex(teach.category.findData("satisfy"))
    wait_for(qtbot, lambda: teach.ready and teach.lesson is not None, 60)
    wait_for(qtbot, lambda: teach.lesson.case.category == "satisfy", 60)
    teach.show_state(0)
    assert teach.lesson.case.states == (0,)
    teach.flaw.setCurrentIndex(teach.flaw.findData("flaw:determinised"))
    assert teach.flaw_card.isVisibleTo(teach)
    assert teach.flaw_card.body.text() == "(press Reveal)"  # not before the oracle's answer
    teach.reveal()
    wait_for(qtbot, lambda: teach.flawed is not None, 60)
    found = teach.flawed
    assert found.verdict == "fail"
    true_value = window.model.oracle.state(0).value
    assert Fraction(true_value).limit_denominator(1000) == Fraction(14, 17)
    text = teach.flaw_card.body.text()
    assert "ignores chance" in text  # the flaw's one-line explanation
    assert "true V = 0.8235" in text
    assert "FAIL against the oracle" in text
    seen = float(found.answer.split()[-1])
    assert abs(seen - 14 / 17) > 0.05
    assert teach.oracle_card.body.text().startswith("Answer: probability 0.8235")
    # the oracle row is right by construction: the danger-blind explainer keeps the true V
    teach.flaw.setCurrentIndex(teach.flaw.findData("flaw:danger-blind"))
    wait_for(qtbot, lambda: teach.flawed is not None, 60)
    assert teach.flawed.verdict == "pass"
    assert teach.flawed.answer == "probability 0.8235"

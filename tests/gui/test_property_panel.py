"""The Model panel's property (issue 49 point 6): the list read from the ``.props`` file beside a
model, a refused property leaving the one in use with its oracle, the campaign asked about the
property chosen, and the graph, inspector and Bellman view speaking its units.

The views under a reward property are checked twice: on the 4-state walk's hand-derived values
handed to the window, and on the oracle's own result for it (Rmin = 7/2 at its start)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from gui_helpers import open_env, wait_for
from PySide6.QtCore import Qt

MODELS = Path(__file__).resolve().parents[1] / "models"
PROPS = """// the walk's properties
const int T = 3;
"reach": Pmax=? [F "goal"];
"time_min": R{"time"}min=? [F "goal"];
"deadline": Pmax=? [F<=T "goal"];
"always": Pmax=? [G "goal"];
Pmin=? [F "unsafe"];
"""


@pytest.fixture
def walk(tmp_path) -> Path:
    """The 4-state rewards model with a property file beside it."""
    model = tmp_path / "walk.prism"
    shutil.copy(MODELS / "rewards_four.prism", model)
    model.with_suffix(".props").write_text(PROPS)
    return model


def open_walk(qtbot, window, walk: Path):
    window.model.open_spec(str(walk))
    wait_for(
        qtbot,
        lambda: window.model.oracle is not None and window.graph.ready,
        120,
    )
    return window.model.oracle


def choose(qtbot, window, text: str) -> None:
    """Pick the list entry starting with ``text`` (or type it) and press Use."""
    box = window.model_view.property_box
    found = next(
        (i for i in range(box.choice.count()) if box.choice.itemText(i).startswith(text)), -1
    )
    if found >= 0:
        box.choice.setCurrentIndex(found)
    else:
        box.choice.setEditText(text)
    box.use_button.click()


def test_the_property_list_is_read_from_the_props_file_beside_the_model(qtbot, window, walk):
    open_walk(qtbot, window, walk)
    box = window.model_view.property_box
    texts = [box.choice.itemText(i) for i in range(box.choice.count())]
    specs = [box.choice.itemData(i) for i in range(box.choice.count())]
    assert texts == [
        "Pmax=? [F goal]: the Goal box's target",
        'reach: Pmax=? [F "goal"]  (walk.props)',
        'time_min: R{"time"}min=? [F "goal"]  (walk.props)',
        'deadline: Pmax=? [F<=T "goal"]  (walk.props)',
        'always: Pmax=? [G "goal"]  (walk.props)',
        'Pmin=? [F "unsafe"]  (walk.props)',
    ]
    path = str(walk.with_suffix(".props"))
    assert specs == [
        "",
        f"{path}:reach",
        f"{path}:time_min",
        f"{path}:deadline",
        f"{path}:always",
        f"{path}:5",
    ]
    assert box.choice.currentIndex() == 0  # the Goal box's property until one is chosen
    assert box.in_use.text().startswith('In use: Pmax=? [F "goal"]')
    assert box.in_use.text() == 'In use: Pmax=? [F "goal"]'
    assert box.in_use.toolTip().startswith("The probability of eventually reaching the goal")


def test_a_chosen_property_is_computed_and_used_by_the_campaign(qtbot, window, walk):
    first = open_walk(qtbot, window, walk)
    choose(qtbot, window, "reach:")
    wait_for(qtbot, lambda: window.model.oracle is not first and not window.model.busy, 60)
    path = str(walk.with_suffix(".props"))
    assert window.model.property_spec == f"{path}:reach"
    assert window.model.oracle.prop.text == 'Pmax=? [F "goal"]'
    assert window.model.oracle.prop.name == "reach"
    assert not window.model_view.goal.isEnabled()  # the property names its own target
    # the campaign is asked about the same property, as run --property takes it
    from explaincheck.gui.adapters.campaign_controller import build_campaign

    setup = window.campaign_view.setup()
    model = window.model
    campaign = build_campaign(
        setup,
        model.environment,
        model.constants,
        model.goal_label,
        model.unsafe_label,
        model.property_spec,
    )
    assert campaign.property_text == f"{path}:reach" and campaign.goal_label is None
    # the Goal box's property again: the goal box is editable again
    choose(qtbot, window, "Pmax=? [F goal]")
    wait_for(qtbot, lambda: window.model.chosen_property is None and not window.model.busy, 60)
    assert window.model_view.goal.isEnabled()


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("always:", "the path operator G is not supported"),  # an unsupported form
        ('R{"energy"}min=? [F "goal"]', ""),  # no rewards block "energy" (now: not computed yet)
        ("Rmin=? [X", "must end with ']'"),  # typed text that does not parse
    ],
)
def test_a_refused_property_is_one_line_and_the_old_one_stays(qtbot, window, walk, entry, says):
    first = open_walk(qtbot, window, walk)
    box = window.model_view.property_box
    choose(qtbot, window, entry)
    wait_for(qtbot, lambda: box.refused.isVisible() and not window.model.busy, 60)
    line = box.refused.text()
    assert line.startswith("Not used: ") and "\n" not in line and says in line
    assert window.model.oracle is first  # the old oracle, with its property, stays in use
    assert window.model.chosen_property is None and window.model.property_spec == ""
    assert window.model.goal_label == "goal"
    assert not window.canvas_error.isVisible()  # the model is fine: nothing covers the graph
    assert window.model_view.status.text().startswith("4 states")  # the oracle kept, said so
    assert box.in_use.text().startswith('In use: Pmax=? [F "goal"]')
    # the model still builds with the old property
    window.model_view.rebuild()
    wait_for(qtbot, lambda: window.model.oracle is not first and not window.model.busy, 60)
    assert window.model.oracle.prop.reaches_goal


def test_the_legend_speaks_probability_under_a_reachability_property(qtbot, window):
    oracle = open_env(qtbot, window, "frozen_lake")
    legend = window.graph.legend
    assert legend.scale_texts() == ("V(s): P(reach goal)", "0", "1")
    assert window.inspector.form.labelForField(window.inspector.fields["V"]).text() == (
        "V(s) = Pmax[F goal]:"
    )
    assert window.model_view.property_box.in_use.text().startswith('In use: Pmax=? [F "goal"]')
    assert oracle.prop.reaches_goal


def test_the_legend_names_a_minimised_probability_and_its_direction(qtbot, window, walk):
    """The words a Pmin property's legend and inspector use (on the walk's oracle, relabelled:
    only the words are checked here)."""
    from dataclasses import replace

    from explaincheck.core.oracle.property import parse_property
    from explaincheck.core.taxonomy.property_units import units_of

    first = open_walk(qtbot, window, walk)
    prop = parse_property('Pmin=? [F "unsafe"]')
    units = units_of(replace(first, model=replace(first.model, property=prop)))
    assert units.legend_title == "V(s): probability, lower is better"
    assert (units.low_text, units.high_text, units.infinite_text) == ("0", "1", "")
    assert units.value_label == 'V(s) = Pmin[F "unsafe"]'
    assert units.dead_end_text == "dead end (V = 1)"


# R{"time"}min=? [F "goal"] on the walk, derived by hand in tests/models/rewards_four.prism:
# by its variable s (0 start, 1 junction, 2 pit, 3 goal): V, Q per action, and what each
# action collects (1 hour a step outside the goal, 2 more for hurrying)
HAND = {
    0: ("7/2", {"fast": "17/4", "safe": "7/2"}, {"fast": "3", "safe": "1"}),
    1: ("5/2", {"risky": None, "slow": "5/2"}, {"risky": "1", "slow": "1"}),
    2: (None, {"wait": None}, {"wait": "1"}),
    3: ("0", {}, {}),
}


def _number(text):
    from fractions import Fraction

    return math.inf if text is None else float(Fraction(text))


def reward_stand_in(oracle):
    """The walk's oracle with the values the pipeline delivers under R{"time"}min=? [F "goal"]
    (derived by hand, HAND): what the GUI shows of a reward property, before the wiring lands."""
    from dataclasses import replace

    from explaincheck.core.oracle.property import parse_property

    states = []
    for facts in oracle.states:
        value, q, rewards = HAND[facts.valuation["s"]]
        finite_q = {a: _number(t) for a, t in q.items()}
        ranked = sorted(finite_q, key=lambda a: finite_q[a])
        states.append(
            replace(
                facts,
                value=_number(value),
                value_exact=value,
                q=finite_q,
                q_exact={a: t for a, t in q.items() if t is not None},
                best=tuple(ranked[:1]),
                worst=tuple(ranked[-1:]),
                optimal_action=ranked[0] if ranked else None,
                dead_end=value is None,
                rewards={a: _number(t) for a, t in rewards.items()},
                rewards_exact=rewards,
            )
        )
    prop = parse_property('R{"time"}min=? [F "goal"]', name="time_min")
    return replace(oracle, states=tuple(states), model=replace(oracle.model, property=prop))


def _check_reward_views(qtbot, window, oracle) -> None:
    """The legend, the inspector and the Bellman view under the walk's Rmin (7/2 at its start)."""
    from explaincheck.core.workbench.bellman import equation_lines

    wait_for(qtbot, lambda: window.graph.ready and window.graph.oracle is oracle, 60)
    title, low, high = window.graph.legend.scale_texts()
    assert title == "V(s): expected time, lower is better"
    assert (low, high) == ("0", "3.5")  # the finite values: goal 0, junction 5/2, start 7/2
    assert window.graph.legend._infinite_row() == "V = ∞: never reaches the goal for sure"
    start = oracle.model.initial
    pit = next(s.id for s in oracle.states if s.valuation["s"] == 2)
    inspector = window.inspector
    label = inspector.form.labelForField(inspector.fields["V"]).text()
    assert label == 'V(s) = R{"time"}min[F "goal"]:'
    inspector.show_state(start)
    assert inspector.fields["V"].text() == "3.5  (= 7/2)"
    inspector.show_state(pit)
    assert inspector.fields["V"].text() == "∞ (never reaches the goal for sure)"
    assert "dead end (V = ∞)" in inspector.fields["flags"].text()
    assert inspector.bars.number(math.inf) == "∞" and inspector.bars.tick(1.0) == "3.5"
    assert window.graph.toolbar.colour_box.itemText(0) == "V (property)"
    page = window.workbench.bellman
    assert page.value_button.text() == "V (expected time, min)"
    page.show_state(start)
    wait_for(qtbot, lambda: page.view is not None and page.view.state == start, 60)
    lines = equation_lines(page.view)
    assert lines[0] == f"V({start}) = min over actions of r(s,a) + Σ P(s'|s,a) · V(s')"
    fast = next(line for line in lines if line.startswith("fast:"))
    safe = next(line for line in lines if line.startswith("safe:"))
    assert fast.startswith("fast: r + ") and " = 3 + " in fast and fast.endswith("= 17/4")
    assert " = 1 + " in safe and safe.endswith("= 7/2   ◀ min")
    assert lines[-1] == f"V({start}) = 7/2"
    assert not page.pi_button.isEnabled()  # the lesson's rounds solve Pmax [F goal] only


def test_the_views_speak_expected_time_under_a_reward_property(qtbot, window, walk):
    """The GUI side alone, now: the walk's oracle with the hand-derived values of Rmin, handed
    to every view as a built oracle is."""
    first = open_walk(qtbot, window, walk)
    oracle = reward_stand_in(first)
    window.model.deliver(oracle)
    _check_reward_views(qtbot, window, oracle)
    box = window.model_view.property_box
    assert box.in_use.text() == 'In use: R{"time"}min=? [F "goal"]'
    assert box.in_use.toolTip() == (
        "The expected time until reaching the goal, when the agent acts to make it as small as"
        " possible"
    )


def _reward_oracle(qtbot, window, walk):
    first = open_walk(qtbot, window, walk)
    choose(qtbot, window, "time_min:")
    refused = window.model_view.property_box.refused
    wait_for(qtbot, lambda: window.model.oracle is not first or refused.isVisible(), 60)
    assert not refused.isVisible(), refused.text()  # today: "computes it only once ... lands"
    wait_for(qtbot, lambda: not window.model.busy, 60)
    return window.model.oracle


def test_the_views_speak_expected_time_under_the_oracles_reward_property(qtbot, window, walk):
    """The same views on the oracle the pipeline computes for time_min of walk.props."""
    oracle = _reward_oracle(qtbot, window, walk)
    assert oracle.prop.is_reward and oracle.initial.value_exact == "7/2"
    _check_reward_views(qtbot, window, oracle)


def test_teach_and_the_sweep_speak_the_reward_property(qtbot, window, walk):
    """Teach's reasons and the sweep's table and plot under the walk's Rmin (stand-in values)."""
    from decimal import Decimal

    from explaincheck.core.taxonomy.teaching import explain
    from explaincheck.core.workbench.sweep import Sweep, SweepPoint
    from explaincheck.core.workspace.presentation.workbench import sweep_shown

    oracle = reward_stand_in(open_walk(qtbot, window, walk))
    lines, _path = explain(oracle, "best_action", oracle.initial)
    assert lines[0] == 'V(s) = R{"time"}min[F "goal"] = 3.5 (exactly 7/2)'
    assert lines[1] == "Q(s, a): safe 3.5, fast 4.25"  # the lowest expected time first
    junction = next(s for s in oracle.states if s.valuation["s"] == 1)
    lines, _path = explain(oracle, "best_action", junction)
    assert lines[1] == "Q(s, a): slow 2.5, risky ∞ (never reaches the goal for sure)"
    points = (
        SweepPoint(Decimal("1"), 3.5, "7/2", {}, {}, oracle=oracle),
        SweepPoint(Decimal("2"), math.inf, None, {}, {}, oracle=oracle),
    )
    shown = sweep_shown(Sweep("p", points, (), (oracle.model.initial,)))
    assert shown.headers[:2] == ["p", "V(initial), expected time"]
    assert [row[1] for row in shown.rows] == ["7/2", "∞ (never reaches the goal for sure)"]
    axes = shown.figure.axes[0]
    assert axes.get_ylabel() == 'V = R{"time"}min[F "goal"]\nexpected time'
    assert axes.get_ylim()[1] > 3.5  # not the probability's 0..1


def test_typed_text_and_enter_choose_the_text_typed(qtbot, window, walk):
    first = open_walk(qtbot, window, walk)
    box = window.model_view.property_box
    count = box.choice.count()
    box.choice.setEditText('Pmax=? [F "goal"]')
    qtbot.keyClick(box.choice.lineEdit(), Qt.Key.Key_Return)
    wait_for(qtbot, lambda: window.model.oracle is not first and not window.model.busy, 60)
    assert window.model.property_spec == 'Pmax=? [F "goal"]'
    assert box.choice.count() == count  # the text is not added to the list


def test_a_campaign_run_from_the_window_is_asked_about_the_chosen_property(qtbot, window, tmp_path):
    """Run (oracle answerer, budget 1) after choosing a property: the results file records
    the property as run --property would (its text and what was checked)."""
    from explaincheck.core.store import Store

    first = open_env(qtbot, window, "frozen_lake")
    choose(qtbot, window, 'Pmax=? [F "goal"]')  # typed: today's computable form
    wait_for(qtbot, lambda: window.model.oracle is not first and not window.model.busy, 60)
    assert window.model.property_spec == 'Pmax=? [F "goal"]'
    view = window.campaign_view
    for i in range(view.llms.count()):
        item = view.llms.item(i)
        wanted = item.data(Qt.ItemDataRole.UserRole) == "oracle"
        item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)
    view.budget.setValue(1)
    db = tmp_path / "results.sqlite"
    view.set_database(str(db))
    window.run_campaign()
    wait_for(qtbot, lambda: db.exists() and not window.campaigns.running, 180)
    with Store.open(db, readonly=True) as store:
        (campaign,) = store.campaigns()
        assert len(store.executions()) > 0
    assert campaign.settings["property_text"] == 'Pmax=? [F "goal"]'
    assert campaign.settings["goal_label"] is None  # the property names its own target

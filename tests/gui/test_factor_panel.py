"""The factor panel on tests/models/factors.prism (hand-checked in tests/core/factors).

The numbers below are those of test_truth.py, with L as a third model factor.

A coin sets the wind w; then short reaches the goal with 1 - p - w*r, long with L; p = 0.3,
r = 0.5, L = 0.6. The bare file gets automatic factors: state factors s, w and model factors p,
r, L. At the windy state (s=1, w=1): Q = (short 0.2, long 0.6), A* = {long}.
- r -> 0: short 0.7 > 0.6: A* flips here, and only here (calm: short 0.7 already best).
- p -> 0: calm short 1 > 0.6, windy short 0.5 < 0.6: A* changes nowhere.
- L -> 0: windy short 0.2 > 0: flips; calm 0.7 > 0 keeps: only the windy state.
- w (state factor): calm and windy have different A*: both choice states change.
Necessary at windy: w, r, L (not s, p); the oracle cites L, w, r.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from gui_helpers import wait_for

from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.environments.generic import generic_environment
from explaincheck.core.factors.types import factor_truth
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.factor_probes import BASELINE
from explaincheck.gui.adapters.factor_controller import FactorController
from explaincheck.gui.views.factor_panel import NOT_ASKED, FactorPanel
from explaincheck.gui.views.graph_view import GraphView

MODEL = str(Path(__file__).parents[1] / "models" / "factors.prism")
CONSTANTS = "p=0.3,r=0.5"
COLUMN = {"cited": 1, "necessary": 2, "sufficient": 3, "behaviour": 4, "graded": 5}


async def _run(plan, db):
    from explaincheck.core.backends.registry import BackendContext, create_backend
    from explaincheck.core.campaign.runner import CampaignRunner
    from explaincheck.core.store import Store

    context = BackendContext(oracle=plan.oracle, environment=plan.environment)
    backend = create_backend("oracle", context)
    store = Store.open(db)
    try:
        await CampaignRunner(plan, store, {"oracle": backend}).run()
    finally:
        await backend.close()
        await context.close()
        store.close()


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    """The oracle answerer's factors cases, run into a real results database and read back as
    the GUI reads them (rows without exec_key)."""
    environment = generic_environment(MODEL, constants=CONSTANTS)
    campaign = Campaign(
        environment=MODEL, constants=CONSTANTS, llms=("oracle",), categories=("factors",)
    )
    plan = plan_campaign(campaign, environment=environment)
    db = tmp_path_factory.mktemp("factors") / "results.sqlite"
    with ThreadPoolExecutor(1) as pool:  # its own event loop, away from the Qt one
        pool.submit(asyncio.run, _run(plan, db)).result()
    from explaincheck.gui.adapters.results_data import read_rows

    rows = {}
    for row in read_rows(str(db)):
        state = plan.oracle.state(row["states"][0])
        rows[(state.valuation["s"], state.valuation["w"])] = row
    keys = {e.case.states[0]: e.key for e in plan.executions}
    return db, environment, rows, keys


def state_of(oracle, s, w):
    return next(x.id for x in oracle.states if x.valuation == {"s": s, "w": w})


def marks(panel, factor_id):
    for r in range(panel.table.rowCount()):
        if panel.table.item(r, 0).text() == factor_id:
            return {k: panel.table.item(r, c).text() for k, c in COLUMN.items()}
    raise KeyError(factor_id)


@pytest.fixture
def shown(qtbot, qloop, planned):
    _db, environment, rows, _keys = planned
    # the panel's oracle is the GUI's: the plain model oracle, without the factor truth
    from explaincheck.core.oracle import compute_oracle

    oracle = compute_oracle(environment.request(constants=CONSTANTS))
    graph = GraphView()
    panel = FactorPanel(controller=FactorController())
    panel.highlight.connect(graph.mark_states)
    qtbot.addWidget(graph)
    qtbot.addWidget(panel)
    graph.set_oracle(oracle)
    wait_for(qtbot, lambda: graph.ready and len(graph.node_items) == len(oracle.states))
    return panel, graph, oracle, environment, rows[(1, 1)]


def test_the_marks_of_the_windy_case(qtbot, shown):
    panel, _graph, oracle, environment, row = shown
    assert panel.show_case(row, oracle, environment, None)
    wait_for(qtbot, lambda: panel.picture is not None)
    assert panel.isVisibleTo(panel.parentWidget() or panel)
    assert [marks(panel, f)["cited"] for f in ("L", "w", "r", "s", "p")] == [
        "1st",
        "2nd",
        "3rd",
        "—",
        "—",
    ]
    assert {f for f in "swprL" if marks(panel, f)["necessary"] == "yes"} == {"w", "r", "L"}
    assert {f for f in "swprL" if marks(panel, f)["sufficient"] == "yes"} == set()
    assert {marks(panel, f)["behaviour"] for f in "swprL"} == {NOT_ASKED}
    # graded necessity / sufficiency: r -> 0 leaves long 0.1 behind short; keeping only r
    # (p = L = 0) gives short 0.5 against long 0; w: calm short 0.7, all neutral short 1
    assert marks(panel, "r")["graded"] == "+0.100 / -0.500"
    assert marks(panel, "w")["graded"] == "+0.100 / -1.000"
    assert "not asked" in panel.title.text()
    windy = state_of(oracle, 1, 1)
    assert panel.before.facts.id == windy


def test_selecting_a_factor_shows_its_q_bars_and_highlights_where_a_star_changes(qtbot, shown):
    panel, graph, oracle, environment, row = shown
    panel.show_case(row, oracle, environment, None)
    wait_for(qtbot, lambda: panel.picture is not None)
    windy, calm = state_of(oracle, 1, 1), state_of(oracle, 1, 0)
    expected = {"r": {windy}, "p": set(), "L": {windy}, "w": {windy, calm}}
    for factor_id, states in expected.items():
        panel.select_factor(factor_id)
        wait_for(qtbot, lambda f=factor_id: panel.shown is not None and panel.shown.factor == f)
        assert set(panel.shown.changed) == states, factor_id
        lit = {s for s, item in graph.node_items.items() if item.highlighted}
        assert lit == states, factor_id
    panel.select_factor("r")
    wait_for(qtbot, lambda: panel.shown is not None and panel.shown.factor == "r")
    after = dict(panel.after.facts.q)
    assert after["short"] == pytest.approx(0.7) and after["long"] == pytest.approx(0.6)
    assert panel.after.facts.best == ("short",)
    assert dict(panel.before.facts.q)["short"] == pytest.approx(0.2)
    panel.select_factor("w")  # a state factor: shown at the calm state, where A* differs
    wait_for(qtbot, lambda: panel.shown is not None and panel.shown.factor == "w")
    assert panel.after.facts.id == calm
    assert "w = 0" in panel.status.text()


def test_intervened_oracles_are_computed_once(qtbot, shown):
    panel, _graph, oracle, environment, row = shown
    panel.show_case(row, oracle, environment, None)
    wait_for(qtbot, lambda: panel.picture is not None)
    panel.select_factor("r")
    wait_for(qtbot, lambda: panel.shown is not None and panel.shown.factor == "r")
    computed = panel.controller.computed
    panel.select_factor("p")
    wait_for(qtbot, lambda: panel.shown is not None and panel.shown.factor == "p")
    panel.select_factor("r")
    wait_for(qtbot, lambda: panel.shown is not None and panel.shown.factor == "r")
    assert panel.controller.computed == computed + 1  # p once; r from the session cache


def test_behaviour_marks_come_from_the_behavioural_table(qtbot, shown, planned):
    panel, _graph, oracle, environment, row = shown
    db, _environment, _rows, keys = planned
    assert "exec_key" not in row  # found through the executions table
    panel.show_case(row, oracle, environment, str(db))
    wait_for(qtbot, lambda: panel.picture is not None)
    assert not panel.picture.asked  # the database has no behavioural probes yet
    with Store.open(db) as store:
        for probe, action in ((BASELINE, "long"), ("r", "short"), ("w", "long"), ("p", None)):
            state = row["states"][0]
            store.record_probe("oracle", keys[state], probe, state, "prompt", "reply", action)
    panel.show_case(row, oracle, environment, str(db))
    wait_for(qtbot, lambda: panel.picture is not None)
    assert marks(panel, "r")["behaviour"] == "changes"
    assert marks(panel, "w")["behaviour"] == "keeps"
    assert marks(panel, "p")["behaviour"] == "no reply"
    assert "recorded" in panel.title.text()


def test_a_case_of_another_category_hides_the_panel(qtbot, shown):
    panel, _graph, oracle, environment, row = shown
    panel.show()
    assert not panel.show_case({**row, "category": "best_action"}, oracle, environment)
    assert panel.isHidden()


def test_teach_shows_the_factor_panel_of_a_factors_case(qtbot, window):
    """frozen_lake in the Teach tab: the factor truth is computed off the GUI thread, the panel
    appears with the oracle's answer, and its necessary marks are the truth's."""
    from gui_helpers import open_env

    open_env(qtbot, window, "frozen_lake")
    teach = window.teach_view
    window.show_tab("teach")
    teach.category.setCurrentIndex(teach.category.findData("factors"))
    wait_for(
        qtbot,
        lambda: (
            teach.ready and teach.lesson is not None and teach.lesson.case.category == "factors"
        ),
        300,
    )
    assert teach.factor_panel.isHidden()  # not before the oracle's answer
    teach.reveal()
    panel = teach.factor_panel
    wait_for(qtbot, lambda: panel.picture is not None, 60)
    assert not panel.isHidden()
    truth = factor_truth(teach.oracle).states[teach.lesson.case.states[0]]
    necessary = {e.factor for e in truth.effects if e.necessary}
    assert {e.factor for e in truth.effects} == {m.id for m in panel.picture.marks}
    assert {
        e.factor for e in truth.effects if marks(panel, e.factor)["necessary"] == "yes"
    } == necessary
    assert {marks(panel, e.factor)["cited"] for e in truth.effects} == {"—"}  # no reply yet
    panel.select_factor("slippery_ice")
    wait_for(qtbot, lambda: panel.shown is not None, 120)
    lit = {s for s, node in teach.graph.node_items.items() if node.highlighted}
    assert lit == set(panel.shown.changed) & set(teach.graph.node_items)


@pytest.fixture
def compared(qtbot, qloop, planned):
    """The Results view on the oracle's rows and a second LLM's copies citing r first: the
    side-by-side tab with the windy case selected, its graph fed by states_highlighted."""
    from explaincheck.core.oracle import compute_oracle
    from explaincheck.gui.adapters.results_data import ResultsData
    from explaincheck.gui.support.tasks import Tasks
    from explaincheck.gui.views.results_view import ResultsView

    db, environment, rows, _keys = planned
    oracle = compute_oracle(environment.request(constants=CONSTANTS))
    other = [
        {**row, "llm": "other", "answer": {**row["answer"], "factors": ["r", "p"]}}
        for row in rows.values()
    ]
    results = ResultsData()
    results.clear(str(db))
    results.add(list(rows.values()) + other)
    view = ResultsView(results, tasks=Tasks())
    graph = GraphView()
    view.states_highlighted.connect(graph.mark_states)
    qtbot.addWidget(view)
    qtbot.addWidget(graph)
    graph.set_oracle(oracle)
    wait_for(qtbot, lambda: graph.ready and len(graph.node_items) == len(oracle.states))
    view.set_oracle(oracle, environment)
    view.compare._refill_llms()
    view.compare.llm_a.setCurrentText("oracle")
    view.compare.llm_b.setCurrentText("other")
    pairs = view.compare.model.pairs
    windy = next(r for r, (a, _b) in enumerate(pairs) if a["states"] == rows[(1, 1)]["states"])
    view.setCurrentWidget(view.compare)
    view.resize(1400, 1000)
    view.show()
    view.compare.table.selectRow(windy)
    panels = view.compare_factors
    wait_for(qtbot, lambda: all(p.picture is not None for p in panels))
    return view, graph, oracle, panels


def test_side_by_side_shows_the_factor_marks_of_both_answers(qtbot, compared, tmp_path):
    view, graph, oracle, (panel_a, panel_b) = compared
    for detail in (view.compare.detail_a, view.compare.detail_b):
        assert detail.factor_box.isVisible()
    cited = {f: (marks(panel_a, f)["cited"], marks(panel_b, f)["cited"]) for f in "Lwrsp"}
    assert cited == {
        "L": ("1st", "—"),
        "w": ("2nd", "—"),
        "r": ("3rd", "1st"),
        "s": ("—", "—"),
        "p": ("—", "2nd"),
    }
    for panel in (panel_a, panel_b):  # one truth on both sides
        assert {f for f in "swprL" if marks(panel, f)["necessary"] == "yes"} == {"w", "r", "L"}
    windy = state_of(oracle, 1, 1)
    assert panel_a.before.facts.id == panel_b.before.facts.id == windy
    assert panel_a.before_box.isVisible() and panel_b.before_box.isHidden()  # the bars once
    panel_b.select_factor("r")  # chosen on one side, shown on both
    wait_for(
        qtbot,
        lambda: all(p.shown is not None and p.shown.factor == "r" for p in (panel_a, panel_b)),
    )
    assert set(panel_a.shown.changed) == set(panel_b.shown.changed) == {windy}
    assert "A* changes at 1 state" in panel_b.status.text()
    assert {s for s, item in graph.node_items.items() if item.highlighted} == {windy}
    assert panel_a.controller is panel_b.controller is view.factor_panel.controller
    panel_a.select_factor("L")
    wait_for(qtbot, lambda: panel_b.shown is not None and panel_b.shown.factor == "L")
    assert panel_a.controller.computed == 2  # r and L, each checked once for both sides
    view.grab().save(str(tmp_path / "compare.png"))


def test_legend_lists_the_highlight_only_while_states_are_highlighted(qtbot, shown):
    from explaincheck.gui.views.graph_legend import HIGHLIGHT_MARK

    _panel, graph, oracle, _environment, _row = shown
    legend = graph.legend
    legend.show()
    assert HIGHLIGHT_MARK not in legend._rows()
    height = legend.sizeHint().height()
    legend.grab()  # draws and caches its picture
    before = legend._cache
    windy = state_of(oracle, 1, 1)
    graph.mark_states([windy])
    assert legend._rows()[-1] == HIGHLIGHT_MARK
    assert legend.highlight == "A* changes under the factor"
    assert legend.sizeHint().height() == height + 20
    picture = legend.grab().toImage()
    assert legend._cache is not before and legend._cache[0] != before[0]  # drawn again
    glow = graph.node_items[windy]  # the legend's swatch is the node's glow colour
    assert glow.highlighted
    from explaincheck.gui.views.graph_items import highlight_glow

    row_y = legend.height() - 18  # the last row's symbol centre
    swatch = picture.pixelColor(20 + 8, row_y)  # inside the glow, outside the node disc
    expected = highlight_glow()
    assert abs(swatch.red() - expected.red()) < 60 and swatch.green() < swatch.red()
    graph.highlight_states([windy], centre=False)
    assert legend.highlight == "test case states"
    graph.mark_states([])
    assert HIGHLIGHT_MARK not in legend._rows()
    assert legend.sizeHint().height() == height

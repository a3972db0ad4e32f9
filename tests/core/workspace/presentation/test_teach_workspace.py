"""The Teach tab's workspace, Qt-free, on real models: the registry's lookups, the lesson and
its steps on frozen_lake, replies stored or asked live and graded against the oracle, a flawed
explainer beside the oracle, the factor panel's marks and interventions, the graph's flaw
colours."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from pathlib import Path

import pytest

from explaincheck.core.environments.generic import generic_environment
from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.workspace.presentation.flaw_pictures import VALUE, FlawColours, choice
from explaincheck.core.workspace.presentation.teach import (
    NEXT_TEXT,
    REVEAL_TEXT,
    TeachWorkspace,
    category,
    llm_entries,
    shown_by,
)
from explaincheck.core.workspace.presentation.teach.factors import (
    FactorSource,
    FactorWorkspace,
    mark_texts,
)

FACTORS_MODEL = str(Path(__file__).parents[3] / "models" / "factors.prism")


def test_category_is_the_registered_one_and_unknown_ids_fail() -> None:
    assert category("factors").id == "factors"
    with pytest.raises(KeyError):
        category("no-such-category")


def test_only_the_factor_categories_are_shown_by_the_factor_panel() -> None:
    assert shown_by("factors", "factors")
    assert not shown_by("factors", "other-panel")
    assert not shown_by(None, "factors")
    assert not shown_by("no-such-category", "factors")


@pytest.fixture(scope="module")
def lake():
    environment = load_builtin("frozen_lake")
    return compute_oracle(environment.request()), environment


def opened(lake, **options) -> TeachWorkspace:
    """A workspace on frozen_lake's satisfy cases, its cases computed."""
    workspace = TeachWorkspace(**options)
    workspace.set_model(*lake)
    return workspace


def test_the_lesson_of_state_8_and_its_steps(lake) -> None:
    oracle, _environment = lake

    async def run() -> tuple:
        workspace = opened(lake)
        cases, paths = [], []
        workspace.case_shown.connect(cases.append)
        workspace.path_shown.connect(paths.append)
        await workspace.settle()
        assert workspace.ready and workspace.category_id == "satisfy"
        first = workspace.cards()
        workspace.show_state(8)
        return workspace, first, cases, paths

    workspace, first, cases, paths = asyncio.run(run())
    # 15 non-goal states are satisfy cases; the most diagnostic first
    assert len(workspace.order) == 15 and first.position == "1 / 15"
    assert workspace.lesson.case.states == (8,) and cases[-1] == (8,)
    assert workspace.lesson.path == [8, 5, 2, 0, 1, 3, 7, 10, 13, 15]
    cards = workspace.cards()
    assert cards.question.startswith("State 8:") and cards.oracle == "(press Reveal)"
    assert cards.reply == "" and cards.reveal == REVEAL_TEXT
    assert paths[-1] == []  # a new case clears the run
    workspace.reveal()
    assert paths[-1] == [8, 5, 2, 0, 1, 3, 7, 10, 13, 15]
    assert Fraction(oracle.state(8).value).limit_denominator(100) == Fraction(9, 17)
    assert workspace.cards().oracle.startswith("Answer: probability 0.5294")
    assert workspace.cards().reply == "(press Reveal)"
    workspace.move_by(1)  # the next case, from step 1
    assert workspace.step == 1 and workspace.lesson.case.states != (8,)
    workspace.move_by(-1)
    assert workspace.lesson.case.states == (8,)


def test_the_id_order_sorts_the_cases(lake) -> None:
    async def run() -> TeachWorkspace:
        workspace = opened(lake)
        await workspace.settle()
        workspace.set_ordering("id")
        await workspace.settle()
        return workspace

    workspace = asyncio.run(run())
    assert [states for states, _delta in workspace.order] == [(s,) for s in range(15)]


def asked_live(lake, spec: str) -> TeachWorkspace:
    """State 8's satisfy question revealed to step 3 for ``spec``, asked live."""

    async def run() -> TeachWorkspace:
        workspace = opened(lake)
        await workspace.settle()
        workspace.show_state(8)
        workspace.llm = spec
        workspace.reveal_all()
        assert workspace.cards().reply == f"Asking {spec}…"
        await workspace.settle()
        return workspace

    return asyncio.run(run())


def test_the_oracle_asked_live_passes(lake) -> None:
    workspace = asked_live(lake, "oracle")
    reply = workspace.cards().reply
    first, answer = reply.splitlines()[:2]
    assert first == "oracle replied:"
    assert json.loads(answer)["probability"] == pytest.approx(9 / 17)
    assert "Verdict: PASS" in reply and reply.endswith("(asked live)")
    assert workspace.cards().reveal == NEXT_TEXT


def test_random_asked_live_is_graded_against_the_oracle(lake) -> None:
    oracle, _environment = lake
    reply = asked_live(lake, "random").cards().reply
    guess = json.loads(reply.splitlines()[1])["probability"]
    right = abs(guess - oracle.state(8).value) <= 0.05  # the default satisfy rule
    assert f"Verdict: {'PASS' if right else 'FAIL'}" in reply
    assert f"V = {oracle.state(8).value:.4f}" in reply


def test_a_stored_reply_is_shown_rather_than_asked(lake) -> None:
    oracle, _environment = lake
    row = {
        "llm": "m",
        "category": "satisfy",
        "states": [8],
        "model_hash": oracle.model.content_hash,
        "reply": "about a half",
        "verdict": "pass",
        "reason": "close",
    }
    asked: list = []

    async def run() -> TeachWorkspace:
        workspace = opened(lake, rows=lambda: [row], can_ask_live=lambda spec: True)
        workspace.live.answered.connect(lambda *a: asked.append(a))
        await workspace.settle()
        workspace.show_state(8)
        workspace.llm = "m"
        workspace.reveal_all()
        await workspace.settle()
        return workspace

    workspace = asyncio.run(run())
    assert workspace.cards().reply == "m replied:\nabout a half\n\nVerdict: PASS — close"
    assert asked == []

    async def unknown() -> TeachWorkspace:  # neither stored nor an answerer asked live
        workspace = opened(lake, rows=lambda: [row], can_ask_live=lambda spec: False)
        await workspace.settle()
        workspace.show_state(8)
        workspace.llm = "other"
        workspace.reveal_all()
        return workspace

    assert asyncio.run(unknown()).cards().reply == "No stored reply for this state."


def test_a_flawed_explainer_beside_the_oracle(lake) -> None:
    async def run() -> TeachWorkspace:
        workspace = opened(lake)
        await workspace.settle()
        workspace.show_state(0)
        workspace.set_flaw("flaw:determinised")
        assert workspace.cards().flaw == "(press Reveal)" and workspace.cards().flaw_shown
        workspace.reveal()
        assert workspace.cards().flaw == "Asking flaw:determinised…"
        await workspace.settle()
        return workspace

    workspace = asyncio.run(run())
    found = workspace.flawed
    assert found is not None and found.verdict == "fail"
    assert float(found.answer.split()[-1]) == pytest.approx(23 / 44, abs=1e-4)
    assert "FAIL against the oracle" in workspace.cards().flaw
    assert "true V = 0.8235" in workspace.cards().flaw


def test_a_factors_case_gives_the_factor_panel_its_row_once_answered(lake) -> None:
    async def run() -> tuple:
        workspace = opened(lake)
        shown: list = []
        workspace.factors_changed.connect(shown.append)
        await workspace.settle()
        workspace.set_category("factors")
        await workspace.settle()
        return workspace, shown

    workspace, shown = asyncio.run(run())
    assert workspace.lesson.case.category == "factors" and shown[-1] is None  # step 1
    workspace.reveal()
    case = shown[-1]
    assert case is not None and case.row["states"] == list(workspace.lesson.case.states)
    assert case.row["expected"]["action"] == list(
        workspace.oracle.state(case.row["states"][0]).best
    )
    assert case.oracle is workspace.oracle  # the one with the factor truth attached


def test_the_factor_panel_marks_and_interventions() -> None:
    """tests/models/factors.prism at the windy state (see tests/gui/test_factor_panel.py):
    necessary w, r, L; neutralising r flips A* only there; each model is checked once."""
    environment = generic_environment(FACTORS_MODEL, constants="p=0.3,r=0.5")
    oracle = compute_oracle(environment.request(constants="p=0.3,r=0.5"))
    windy = next(s.id for s in oracle.states if s.valuation == {"s": 1, "w": 1})
    from explaincheck.core.campaign.plan import Campaign, plan_campaign

    plan = plan_campaign(
        Campaign(
            environment=FACTORS_MODEL,
            constants="p=0.3,r=0.5",
            llms=("oracle",),
            categories=("factors",),
        ),
        environment=environment,
    )
    case = next(e.case for e in plan.executions if e.case.states == (windy,))
    from explaincheck.core.analysis.factor_picture import lesson_row

    row = lesson_row(case.states, plan.oracle)

    async def run() -> tuple:
        source = FactorSource()
        panel = FactorWorkspace(source)
        said: list[str] = []
        panel.said.connect(said.append)
        assert panel.begin(row, oracle)
        picture = await panel.load(row, environment, None)
        r = await panel.intervene("r")
        await panel.intervene("p")
        again = await panel.intervene("r")
        return panel, picture, r, again, said, source

    _panel, picture, r, again, said, source = asyncio.run(run())
    necessary = {m.id for m in picture.marks if m.necessary}
    assert necessary == {"w", "r", "L"}
    assert mark_texts(next(m for m in picture.marks if m.id == "r"), False)[4] == "not asked"
    assert set(r.changed) == {windy} and dict(r.after.q)["short"] == pytest.approx(0.7)
    assert again.changed == r.changed and source.computed == 2  # r once, p once
    assert said[-1].startswith("r: ") and "A* changes at 1 state" in said[-1]
    assert not FactorWorkspace(source).begin({**row, "category": "satisfy"}, oracle)


def test_the_graph_flaw_colours(lake) -> None:
    oracle, _environment = lake

    async def run() -> FlawColours:
        colours = FlawColours()
        changed: list = []
        colours.changed.connect(lambda: changed.append(1))
        assert colours.set_oracle(oracle) is None  # nothing chosen: nothing to compute
        work = colours.choose(choice(VALUE, "flaw:determinised"))
        assert work is not None and not colours.ready
        await work
        assert changed == [1]
        assert colours.choose(choice(VALUE, "flaw:determinised")) is None  # kept
        return colours

    colours = asyncio.run(run())
    assert colours.ready and colours.values[0] == pytest.approx(23 / 44)
    assert colours.scale_title == "V̂(s) of flaw:determinised"
    assert colours.choose("value") is None and colours.active is None


def test_the_llm_box_lists_stored_llms_then_the_live_answerers() -> None:
    assert llm_entries(["m", "oracle"], ["random", "oracle"]) == [
        ("m (stored)", "m"),
        ("oracle (stored)", "oracle"),
        ("random (ask live)", "random"),
    ]

"""The property of the open model, chosen without Qt (issue 49 point 6): the list a front end
offers (``property_choices``) and ``ModelWorkspace.choose_property``, whose refusals leave the
property and oracle in use as they were."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from explaincheck.core.environments.registry import resolve
from explaincheck.core.workspace.model import ModelWorkspace
from explaincheck.core.workspace.property_choices import property_choices

MODELS = Path(__file__).resolve().parents[2] / "models"
PROPS = """const int T = 3;
"reach": Pmax=? [F "goal"];
"time_min": R{"time"}min=? [F "goal"];
"always": Pmax=? [G "goal"];
Pmin=? [F "unsafe"];
"""


def walk(tmp_path: Path) -> Path:
    model = tmp_path / "walk.prism"
    shutil.copy(MODELS / "rewards_four.prism", model)
    model.with_suffix(".props").write_text(PROPS)
    return model


def test_a_builtin_offers_the_goal_and_its_own_properties():
    found = property_choices(resolve("frozen_lake"))
    assert [(c.spec, c.source) for c in found] == [("", "goal"), ("deadline", "environment")]
    assert found[1].label == 'deadline: Pmax=? [F<=20 "goal"]'


def test_a_bare_model_offers_every_statement_of_the_file_beside_it(tmp_path):
    model = walk(tmp_path)
    found = property_choices(resolve(str(model)))
    path = str(model.with_suffix(".props"))
    assert [c.spec for c in found] == [
        "",
        f"{path}:reach",
        f"{path}:time_min",
        f"{path}:always",  # not of a supported form: listed, refused when chosen
        f"{path}:4",  # unnamed: by its position
    ]
    assert found[3].label == 'always: Pmax=? [G "goal"]  (walk.props)'
    assert property_choices(None)[0].spec == ""


def test_an_unreadable_file_beside_the_model_offers_nothing_of_it(tmp_path):
    model = walk(tmp_path)
    model.with_suffix(".props").write_bytes(b"\0\1binary")
    assert [c.spec for c in property_choices(resolve(str(model)))] == [""]


def _opened(tmp_path):
    workspace = ModelWorkspace()
    refused: list[str] = []
    failed: list[BaseException] = []
    workspace.events.property_refused.connect(refused.append)
    workspace.events.failed.connect(failed.append)
    first = asyncio.run(workspace.open_spec(str(walk(tmp_path))))
    assert first is not None and first.prop.reaches_goal
    return workspace, first, refused, failed


def test_a_chosen_property_is_the_oracles_and_the_goal_box_comes_back(tmp_path):
    workspace, first, refused, failed = _opened(tmp_path)
    spec = f"{tmp_path / 'walk.props'}:reach"
    oracle = asyncio.run(workspace.choose_property(spec))
    assert oracle is not None and oracle is workspace.oracle and oracle is not first
    assert workspace.property_spec == spec and oracle.prop.name == "reach"
    assert workspace.request().property == workspace.property
    back = asyncio.run(workspace.choose_property(""))
    assert back is not None and workspace.property is None and workspace.property_spec == ""
    assert (refused, failed) == ([], [])


def test_a_refused_property_leaves_the_one_in_use(tmp_path):
    workspace, first, refused, failed = _opened(tmp_path)
    reach = f"{tmp_path / 'walk.props'}:reach"
    kept = asyncio.run(workspace.choose_property(reach))
    before = (workspace.property, workspace.property_spec, workspace.goal_label)
    for spec in (
        f"{tmp_path / 'walk.props'}:always",  # unsupported form: refused while read
        "Rmin=? [X",  # does not parse
        "no_such_name",  # no property of this model
        'R{"energy"}min=? [F "goal"]',  # no such rewards block (today: not computed yet)
    ):
        assert asyncio.run(workspace.choose_property(spec)) is None
        assert (workspace.property, workspace.property_spec, workspace.goal_label) == before
        assert workspace.oracle is kept
    assert len(refused) == 4 and all("\n" not in line for line in refused)
    assert "the path operator G is not supported" in refused[0]
    assert "no property of this model" in refused[2]
    assert failed == []  # the model is fine: no failure event
    assert first is not kept


def test_a_results_file_opens_its_model_under_the_campaigns_property():
    from explaincheck.core.store.records import CampaignRow
    from explaincheck.core.workspace.presentation.results.opening import campaign_model

    settings = {"property_text": "walk.props:time_min", "goal_label": None, "constants": None}
    row = CampaignRow(1, "id", settings, "walk.prism", "hash", 4, "done", "t0")
    opened = campaign_model([row], "walk.prism")
    assert opened["property"] == "walk.props:time_min" and opened["goal_label"] == ""
    older = CampaignRow(1, "id", {"goal_label": "goal"}, "walk.prism", "hash", 4, "done", "t0")
    assert campaign_model([older], "walk.prism")["property"] == ""

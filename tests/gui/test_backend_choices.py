"""The views list the backend registry's kinds, handed to them as plain data: a new backend kind
shows up in the Campaign and Teach tabs with no view edited."""

from __future__ import annotations

from PySide6.QtCore import Qt

from explaincheck.core.backends import registry
from explaincheck.core.backends.registry import BackendKind
from explaincheck.gui.adapters.backend_choices import llm_choices
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.campaign_view import CampaignView
from explaincheck.gui.views.teach_view import TeachView


def specs(widget) -> list[str]:
    return [widget.item(i).data(Qt.ItemDataRole.UserRole) for i in range(widget.count())]


def test_choices_come_from_the_kinds_table():
    """Every offered choice carries its kind's facts, whatever kinds are registered."""
    choices = llm_choices()
    offered = {c.spec: c for c in choices.offered}
    for kind in registry.KINDS.values():
        for spec in kind.offered():
            choice = offered[spec]
            assert choice.text.startswith(f"{spec} — {kind.description(spec)}")
            assert (choice.preselected, choice.flaw_picture) == (
                kind.preselected,
                kind.flaw_picture,
            )
            assert (choice.live, choice.instant) == (kind.live, kind.instant)
            assert choice.reference == (kind.role == registry.REFERENCE)
            assert choice.model == (kind.role == registry.MODEL)
        assert choices.can_ask_live(f"{kind.prefix}:x") == kind.live
    assert set(offered) == {s for k in registry.KINDS.values() for s in k.offered()}
    assert not choices.can_ask_live("gpt")  # an unknown prefix


def _new_kinds() -> list[BackendKind]:
    """One new kind of each role, with the facts the screens read."""
    return [
        BackendKind(
            "echo",
            lambda rest, ctx: None,
            "says yes",
            live=True,
            role=registry.BASELINE,
            preselected=True,
            instant=True,
        ),
        BackendKind("top", lambda rest, ctx: None, "always 1", role=registry.CEILING),
        BackendKind("liar", lambda rest, ctx: None, "a known liar", role=registry.REFERENCE),
        BackendKind("gpt9", lambda rest, ctx: None, "a model", live=True),
    ]


def test_a_registered_kind_of_each_role_is_offered_by_both_views(qtbot, qloop, monkeypatch):
    for kind in _new_kinds():
        monkeypatch.setitem(registry.KINDS, kind.prefix, kind)
    choices = llm_choices()
    campaign = CampaignView(Tasks(), answerers=choices)
    qtbot.addWidget(campaign)
    listed, references = specs(campaign.llms), specs(campaign.references)
    kinds = registry.KINDS.values()
    models = [s for k in kinds if k.role != registry.REFERENCE for s in k.offered()]
    assert listed == models  # registration order, references apart
    assert {s for k in kinds if k.role == registry.REFERENCE for s in k.offered()} <= set(
        references
    )
    ticked = [
        campaign.llms.item(i).data(Qt.ItemDataRole.UserRole)
        for i in range(len(listed))
        if campaign.llms.item(i).checkState() == Qt.CheckState.Checked
    ]
    assert ticked == [
        s for k in kinds if k.preselected and k.role != registry.REFERENCE for s in k.offered()
    ]
    assert "echo" in ticked and "top" not in ticked
    echo = campaign.llms.item(listed.index("echo"))
    assert echo.text() == "echo — says yes"

    teach = TeachView(ResultsData(), Tasks(), answerers=choices)
    qtbot.addWidget(teach)
    teach._refill_llms()
    asked_live = [teach.llm.itemData(i) for i in range(teach.llm.count())]
    assert asked_live == [s for k in kinds if k.live and k.instant for s in k.offered()]
    flaws = [teach.flaw.itemData(i) for i in range(1, teach.flaw.count())]
    assert flaws == [s for k in kinds if k.flaw_picture for s in k.offered()]
    assert "liar" not in flaws  # a reference without a picture is no flaw: spec

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
    choices = llm_choices()
    by_spec = {c.spec: c for c in choices.offered}
    assert by_spec["random"].baseline and by_spec["random"].live
    assert by_spec["random"].text == "random — uniform guesses (baseline)"
    assert by_spec["oracle"].baseline and not by_spec["oracle"].reference
    assert by_spec["flaw:myopic:2"].reference and not by_spec["flaw:myopic:2"].live
    assert by_spec["flaw:myopic:2"].text.startswith("flaw:myopic:2 — plans only 2 steps ahead")
    assert by_spec["local:gemma3-270m"].model
    assert choices.can_ask_live("ollama:gemma3:1b@http://h:1")
    assert choices.can_ask_live("local:smollm2-135m") and choices.can_ask_live("oracle")
    assert not choices.can_ask_live("flaw:distance") and not choices.can_ask_live("gpt")


def test_a_registered_kind_is_offered_by_both_views(qtbot, qloop, monkeypatch):
    kind = BackendKind(
        "echo", lambda rest, ctx: None, "says yes", live=True, role=registry.BASELINE
    )
    monkeypatch.setitem(registry.KINDS, "echo", kind)
    choices = llm_choices()
    campaign = CampaignView(Tasks(), answerers=choices)
    qtbot.addWidget(campaign)
    listed = specs(campaign.llms)
    assert listed[:2] == ["random", "oracle"] and listed[-1] == "echo"  # registration order
    echo = campaign.llms.item(len(listed) - 1)
    assert echo.checkState() == Qt.CheckState.Checked and echo.text() == "echo — says yes"
    assert "flaw:danger-blind" in specs(campaign.references)
    assert "echo" not in specs(campaign.references)

    teach = TeachView(ResultsData(), Tasks(), answerers=choices)
    qtbot.addWidget(teach)
    teach._refill_llms()
    offered = [teach.llm.itemData(i) for i in range(teach.llm.count())]
    assert offered == ["random", "oracle", "echo"]
    assert teach.flaw.findData("flaw:myopic:5") > 0

"""The estimate before Run prices each answerer by its backend kind: an instant kind registered
at run time costs nothing (it was priced at 3 s a reply, "about 20 min" for 400 replies), and a
pooled server's replies overlap up to the concurrency."""

from __future__ import annotations

from explaincheck.core.backends import registry
from explaincheck.core.backends.registry import REFERENCE, BackendKind
from explaincheck.core.workspace.presentation.campaign_estimate import estimate
from explaincheck.gui.adapters.backend_choices import llm_choices
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.campaign_view import CampaignView


def test_a_registered_instant_kind_is_estimated_as_instant(qtbot, qloop, monkeypatch):
    always = BackendKind(
        "always", lambda rest, ctx: None, "names one action", role=REFERENCE, instant=True
    )
    monkeypatch.setitem(registry.KINDS, "always", always)
    view = CampaignView(Tasks(), answerers=llm_choices())
    qtbot.addWidget(view)
    view.llm_box.set_llm_checked("random", False)
    view.llm_box.set_llm_checked("oracle", False)
    view.llm_box.extra_spec.setText("always")
    view.llm_box.add_typed_spec()
    view.category_box.set_categories(["satisfy"])
    view.budget.setValue(400)
    view.repeat.setValue(1)
    assert view.selected_llms() == ["always"]
    assert view.estimate_text.text() == "Estimate: under 1 min for up to 400 answers"
    view.apply_preferences("", 2)
    view.llm_box.extra_spec.setText("ollama:gemma3:1b")  # a model beside it is priced as before
    view.llm_box.add_typed_spec()  # adding it refreshes the estimate: 400 × 3 s ÷ 2 in flight
    assert view.estimate_text.text().startswith("Estimate: about 10 min for up to 800 answers")


def test_replies_overlap_as_each_kind_declares():
    # OpenAI-compatible servers are pooled like Ollama: 40 × 3 s ÷ 4 in flight
    assert estimate(["openai:m@http://127.0.0.1:1/v1"], 40, {}, concurrency=4).seconds == 30.0
    assert estimate(["ollama:m"], 40, {}, concurrency=4).seconds == 30.0
    # local models share one thread: their times add, at the kind's planning rate (4 s)
    assert estimate(["local:a", "local:b"], 10, {}, concurrency=4).seconds == 80.0
    assert estimate(["noisy:0.5", "flaw:distance", "random"], 400, {}).seconds == 0.0

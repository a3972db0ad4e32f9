"""The Campaign tab's reference explainers, wording and metamorphic choices reach the Campaign,
are remembered, and the estimate before Run follows the set-up and the measured rates."""

from __future__ import annotations

from gui_helpers import open_env, wait_for

from explaincheck.gui.campaign_controller import build_campaign
from explaincheck.gui.campaign_estimate import estimate, executions_per_llm, measured_rates
from explaincheck.gui.main_window import MainWindow


def window_campaign(window):
    """The Campaign the tab's set-up gives on the open model (as Run builds it)."""
    environment = window.model.environment
    return build_campaign(window.campaign_view.setup(), environment, "N=4", "goal", "unsafe")


KINDS = ("flaw:myopic", "flaw:determinised", "flaw:distance", "flaw:danger-blind", "noisy:")


def test_reference_group_lists_five_kinds_and_feeds_the_campaign(qtbot, window):
    view = window.campaign_view
    assert view.references.parentWidget().title() == "Reference explainers (known flaws)"
    specs = [view.references.item(i).data(0x0100) for i in range(view.references.count())]
    for kind in KINDS:
        assert any(spec.startswith(kind) for spec in specs), kind
    assert "flaw:myopic:2" in specs and "flaw:myopic:5" in specs
    texts = [view.references.item(i).text() for i in range(view.references.count())]
    assert all(" — " in text for text in texts)  # each with its one-line description
    open_env(qtbot, window, "frozen_lake")
    wait_for(qtbot, lambda: window.tasks.idle, 60)
    view.references_box.set_reference_checked("flaw:myopic:2", True)
    view.references_box.set_reference_checked("flaw:determinised", True)
    view.references_box.set_reference_checked("noisy:", True)
    view.noisy_share.setValue(0.25)
    view.wording.setCurrentIndex(view.wording.findData("all"))
    view.metamorphic.setChecked(True)
    campaign = window_campaign(window)
    assert campaign.llms == ("random", "oracle", "flaw:myopic:2", "flaw:determinised", "noisy:0.25")
    assert campaign.wordings == (0, 1, 2)
    assert campaign.metamorphic is True
    view.wording.setCurrentIndex(view.wording.findData("1"))
    assert window_campaign(window).wordings == (1,)


def test_reference_wording_and_metamorphic_choices_survive_a_new_window(qtbot, qloop, settings):
    first = MainWindow(settings)
    qtbot.addWidget(first)
    view = first.campaign_view
    view.references_box.set_reference_checked("flaw:distance", True)
    view.noisy_share.setValue(0.75)
    view.wording.setCurrentIndex(view.wording.findData("2"))
    view.metamorphic.setChecked(True)
    first.close()
    second = MainWindow(settings)
    qtbot.addWidget(second)
    again = second.campaign_view
    assert again.references_box.reference_specs() == ["flaw:distance"]
    assert again.noisy_share.value() == 0.75
    assert again.wording.currentData() == "2"
    assert again.metamorphic.isChecked()
    second.close()


def test_estimate_text_follows_the_setup_and_measured_rates(qtbot, window):
    view = window.campaign_view
    view.llm_box.set_llm_checked("random", False)
    view.llm_box.set_llm_checked("oracle", False)
    view.extra_spec.setText("ollama:gemma3:1b")
    view.llm_box.add_typed_spec()
    view.estimate.ollama_concurrency = 1
    view.category_box.set_categories(["satisfy"])
    view.budget.setValue(10)
    view.repeat.setValue(1)
    view.estimate.set_rates({"ollama:gemma3:1b": 6.0})  # 10 answers × 6 s = 1 min
    assert view.estimate_text.text().startswith("Estimate: about 1 min for up to 10 answers")
    assert "measured rate (on this machine)" in view.estimate_text.text()
    view.repeat.setValue(5)  # 50 answers × 6 s = 5 min
    assert "about 5 min" in view.estimate_text.text()
    view.wording.setCurrentIndex(view.wording.findData("all"))  # ×3 = 15 min
    assert "about 15 min" in view.estimate_text.text()
    view.estimate.set_rates({})
    assert "a guess: default rate 3 s/answer for ollama:gemma3:1b" in view.estimate_text.text()


def test_estimate_arithmetic_and_rates_from_rows():
    assert executions_per_llm(2, 10, 2, 3, 3, False) == 360
    assert executions_per_llm(1, 10, 1, 1, 1, True) == 40
    found = estimate(["random", "flaw:distance", "local:a", "local:b"], 30, {"local:a": 2.0})
    assert found.seconds == 30 * 2.0 + 30 * 4.0  # local models share one thread: times add
    assert found.measured == ("local:a",) and found.assumed == ("local:b",)
    rows = [
        {"llm": "local:a", "verdict": "pass", "latency": 1.0, "category": "satisfy"},
        {"llm": "local:a", "verdict": "fail", "latency": 3.0, "category": "satisfy"},
        {"llm": "local:a", "verdict": "error", "latency": 50.0, "category": "satisfy"},
    ]
    assert measured_rates(rows) == {"local:a": 2.0}


def test_estimate_uses_the_rates_measured_in_the_results(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLAINCHECK_CACHE", str(tmp_path))  # no speed kept by other tests
    view = window.campaign_view
    view.llm_box.set_llm_checked("random", False)
    view.llm_box.set_llm_checked("oracle", False)
    view.extra_spec.setText("ollama:gemma3:1b")
    view.llm_box.add_typed_spec()
    view.estimate.ollama_concurrency = 2
    view.category_box.set_categories(["satisfy"])
    view.budget.setValue(40)
    assert "default rate" in view.estimate_text.text()
    rows = [
        {"llm": "ollama:gemma3:1b", "verdict": v, "latency": t, "category": "satisfy"}
        for v, t in (("pass", 5.0), ("fail", 7.0), ("invalid", 6.0))
    ]
    window.results.add(rows)  # as a campaign streams them in: rates are read again
    wait_for(qtbot, lambda: view.estimate.rates == {"ollama:gemma3:1b": 6.0}, 20)
    # 40 answers × 6 s ÷ 2 in flight = 2 min
    assert view.estimate_text.text().startswith("Estimate: about 2 min for up to 40 answers")
    assert "default rate" not in view.estimate_text.text()

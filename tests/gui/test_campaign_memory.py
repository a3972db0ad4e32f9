"""The campaign set-up (LLMs, categories, budget, selection, seed, repeat) comes back in a new
window, and categories greyed out for one model do not lose the user's choice."""

from __future__ import annotations

from gui_helpers import open_env, wait_for
from PySide6.QtCore import Qt

from explaincheck.gui.main_window import MainWindow
from explaincheck.gui.views.campaign_llm_box import SPEC


def test_campaign_choices_survive_a_new_window(qtbot, qloop, settings):
    first = MainWindow(settings)
    qtbot.addWidget(first)
    view = first.campaign_view
    view.extra_spec.setText("ollama:gemma3:1b@http://127.0.0.1:9")
    view.llm_box.add_typed_spec()
    view.llm_box.set_llm_checked("random", False)
    view.category_box.set_categories(["satisfy", "safer", "ranking"])
    view.budget.setValue(7)
    view.selection.setCurrentIndex(view.selection.findData("random"))
    view.seed.setValue(1234)
    view.repeat.setValue(3)
    view.satisfy_rule.setCurrentIndex(view.satisfy_rule.findData("half"))
    first.close()

    second = MainWindow(settings)
    qtbot.addWidget(second)
    again = second.campaign_view
    assert again.selected_llms() == ["oracle", "ollama:gemma3:1b@http://127.0.0.1:9"]
    assert set(again.category_box.selected_categories()) == {"satisfy", "safer", "ranking"}
    assert again.budget.value() == 7
    assert again.selection.currentData() == "random"
    assert again.seed.value() == 1234 and again.repeat.value() == 3
    assert again.satisfy_rule.currentData() == "half"
    second.close()


def test_a_remembered_llm_of_a_kind_no_longer_registered_is_not_listed(qtbot, qloop, settings):
    # what a window saved while a plugin's backend was installed, the plugin now gone
    settings.save_campaign_choices(
        {
            "llms": [
                ["random", "random — uniform guesses (baseline)", False],
                ["gone_plugin_kind", "gone_plugin_kind — a plugin since uninstalled", True],
                ["ollama:gemma3:1b@http://127.0.0.1:9", "ollama:gemma3:1b", True],
            ]
        }
    )
    window = MainWindow(settings)
    qtbot.addWidget(window)
    box = window.campaign_view.llm_box
    listed = [box.llms.item(i).data(SPEC) for i in range(box.llms.count())]
    assert "gone_plugin_kind" not in listed
    selected = window.campaign_view.selected_llms()
    assert "ollama:gemma3:1b@http://127.0.0.1:9" in selected  # the other remembered ones stay
    assert "random" not in selected  # with their ticks
    window.close()


def test_applicability_keeps_the_users_category_choice(qtbot, window):
    view = window.campaign_view
    view.category_box.set_categories(["satisfy", "best_action"])
    open_env(qtbot, window, "frozen_lake")
    wait_for(qtbot, lambda: bool(view.category_box.reasons) or window.tasks.idle, 60)
    wait_for(qtbot, lambda: window.tasks.idle, 60)
    assert set(view.category_box.selected_categories()) == {"satisfy", "best_action"}
    # a click by the user is remembered too
    item = view.category_items["bottleneck"]
    item.setCheckState(0, Qt.CheckState.Checked)
    assert "bottleneck" in view.category_box.wanted_categories

"""File › Ask an LLM for its policy… with "then ask it about its own policy": the window runs
the three steps of ``explaincheck selfcheck`` into its results file, attaches the policy, and
the policy view's Self-check box shows the figures, rebuilt from the stored rows (reopening the
file shows them again)."""

from __future__ import annotations

from gui_helpers import open_env, wait_for

from explaincheck.core.campaign.selfcheck import EXPLAIN_SELECTIONS, SAY_SELECTION
from explaincheck.core.store import Store
from explaincheck.gui.adapters.llm_policy import PolicyAsk
from explaincheck.gui.views.llm_policy_dialog import LlmPolicyDialog


def _figures(box) -> dict[str, str]:
    model = box.model
    return {model.index(r, 0).data(): model.index(r, 1).data() for r in range(model.rowCount())}


def test_the_self_check_of_the_oracle_is_stored_and_shown(qtbot, window, tmp_path):
    open_env(qtbot, window, "frozen_lake")
    db = tmp_path / "self.sqlite"
    before = window.model.oracle
    assert window.llm_policy.ask(PolicyAsk("oracle", budget=20, database=str(db), selfcheck=True))
    wait_for(qtbot, lambda: window.model.oracle is not before, 180)
    box = window.report_view.policy_loss.selfcheck
    wait_for(qtbot, lambda: not box.isHidden() and box.model.rowCount() > 5, 120)
    assert box.model.headers == ["figure", "oracle"]  # one column per LLM checked
    shown = _figures(box)
    assert shown["say–do agreement"].startswith("1 [")
    assert shown["say–do agreement"].endswith(", 10 states")  # s0: all four moves tie
    own = shown["accuracy: own policy"]  # with its Wilson interval, like say–do (issue 51.8)
    assert own.startswith("1 [") and own.endswith(" questions)")
    assert shown["accuracy: uniform policy"].startswith("1 (")
    assert shown["value loss of its policy"] == "0 = 0"
    with Store.open(db, readonly=True) as store:
        selections = {r["selection"] for r in store.executions()}
    assert selections == {"policy", SAY_SELECTION, *EXPLAIN_SELECTIONS.values()}

    window.report_view.policy_loss.selfcheck.set_table(None)  # reopening the file fills it
    assert box.isHidden()
    qtbot.waitUntil(lambda: not window.busy(), timeout=60_000)
    window.open_database(str(db))
    wait_for(qtbot, lambda: not box.isHidden(), 120)
    assert _figures(box)["value loss of its policy"] == "0 = 0"


def test_the_dialog_carries_the_self_check_choice(qtbot):
    from explaincheck.gui.adapters.backend_choices import llm_choices

    dialog = LlmPolicyDialog(llm_choices(), PolicyAsk("oracle", 7, "uniform", "p.sqlite", True))
    qtbot.addWidget(dialog)
    assert dialog.selfcheck.text() == "then ask it about its own policy"
    assert dialog.request() == PolicyAsk("oracle", 7, "uniform", "p.sqlite", True)
    dialog.selfcheck.setChecked(False)
    assert dialog.request().selfcheck is False

"""The campaign controller alone (no window): a run signals its plan, each row and its outcome
into a real results file; Stop cancels it; a bad results folder is reported; the Ollama host
check lists a stand-in server's models on the window's loop without holding the worker
threads; the tab's set-up becomes a ``Campaign``."""

from __future__ import annotations

import socket

import pytest
from gui_helpers import wait_for
from PySide6.QtCore import QTimer
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import Store
from explaincheck.gui.adapters.campaign_controller import (
    CampaignController,
    build_campaign,
    results_path,
)
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views.campaign_view import CampaignSetup

CATEGORIES = ("satisfy", "best_action")


@pytest.fixture(scope="module")
def model():
    plan = plan_campaign(Campaign("frozen_lake", ("oracle",), ("satisfy",), budget=1))
    return plan.environment, plan.oracle


@pytest.fixture
def controller(qtbot, qloop):
    tasks = Tasks()
    found = CampaignController(tasks)
    yield found
    found.stop()
    found.wait(10)
    wait_for(qtbot, lambda: tasks.idle and not found.running, 30)


def campaign(*llms: str) -> Campaign:
    return Campaign("frozen_lake", llms, CATEGORIES, budget=2)


def run(qtbot, controller, model, db, *llms: str):
    """Start a campaign, wait for its outcome; the signals seen on the way."""
    environment, oracle = model
    seen: dict[str, list] = {"planned": [], "llm_plan": [], "rows": []}
    controller.planned.connect(lambda total, skipped: seen["planned"].append((total, skipped)))
    controller.llm_plan.connect(lambda left, cap: seen["llm_plan"].append((left, cap)))
    controller.row.connect(seen["rows"].append)
    with qtbot.waitSignal(controller.finished, timeout=120_000) as finished:
        controller.start(campaign(*llms), str(db), environment, oracle, BackendSettings())
    wait_for(qtbot, lambda: not controller.running, 30)
    return finished.args[0], seen


def test_a_run_signals_its_plan_rows_and_outcome(qtbot, controller, model, tmp_path):
    db = tmp_path / "results.sqlite"
    outcome, seen = run(qtbot, controller, model, db, "random", "oracle")
    assert seen["planned"] == [(8, {})]  # 2 LLMs x 2 categories x 2 cases
    (left, capacity) = seen["llm_plan"][0]
    assert left == {"random": 4, "oracle": 4}
    assert set(capacity) == {"random", "oracle"} and all(v >= 1 for v in capacity.values())
    assert outcome.complete and outcome.progress.state == "finished"
    assert len(seen["rows"]) == 8
    assert {r.verdict for r in seen["rows"] if r.llm == "oracle"} == {"pass"}
    with Store.open(db, readonly=True) as store:
        assert len(store.executions()) == 8


def test_the_same_campaign_again_resumes(qtbot, controller, model, tmp_path):
    db = tmp_path / "results.sqlite"
    run(qtbot, controller, model, db, "oracle")
    outcome, seen = run(qtbot, controller, model, db, "oracle")
    assert seen["llm_plan"][0][0] == {"oracle": 0}  # nothing left to ask
    assert outcome.progress.resumed == 4 and not seen["rows"]


def test_a_campaign_resumed_under_another_rule_is_graded_again(qtbot, controller, model, tmp_path):
    """As ``run`` does: the stored rows are graded again under the rule asked for (from their
    replies, no LLM asked) and the campaign record names that rule."""
    from dataclasses import asdict, replace

    from explaincheck.core.campaign.regrade import case_of
    from explaincheck.core.taxonomy.base import GradingSettings
    from explaincheck.core.taxonomy.grading import grade_reply

    environment, oracle = model
    db = tmp_path / "results.sqlite"
    first = replace(campaign("random"), categories=("satisfy",), budget=8)
    half = GradingSettings(satisfy_rule="half")
    for grading in (GradingSettings(), half):
        with qtbot.waitSignal(controller.finished, timeout=120_000):
            again = replace(first, grading=grading)
            controller.start(again, str(db), environment, oracle, BackendSettings())
        wait_for(qtbot, lambda: not controller.running, 30)
    with Store.open(db, readonly=True) as store:
        rows = store.stored_executions()
        (record,) = store.campaigns()
    assert len(rows) == 8 and all(r.grading == asdict(half) for r in rows)
    fresh = [grade_reply(case_of(r), r.reply, oracle, half).verdict for r in rows]
    assert [r.verdict for r in rows] == fresh
    assert record.settings["grading"] == asdict(half)


def test_stop_right_after_start_cancels_the_run(qtbot, controller, model, tmp_path):
    environment, oracle = model
    with qtbot.waitSignal(controller.finished, timeout=120_000) as finished:
        controller.start(
            campaign("random"), str(tmp_path / "r.sqlite"), environment, oracle, BackendSettings()
        )
        controller.stop()
    outcome = finished.args[0]
    assert outcome.progress.state == "cancelled"
    assert outcome.progress.done < outcome.progress.total
    wait_for(qtbot, lambda: not controller.running, 30)


def test_a_results_file_in_a_missing_folder_is_reported(qtbot, controller, model, tmp_path):
    environment, oracle = model
    db = tmp_path / "missing" / "r.sqlite"
    with qtbot.waitSignal(controller.failed, timeout=120_000) as failed:
        controller.start(campaign("random"), str(db), environment, oracle, BackendSettings())
    assert isinstance(failed.args[0], ExplaincheckError)
    assert "does not exist" in str(failed.args[0])
    wait_for(qtbot, lambda: not controller.running, 30)


# -- Ollama host check ------------------------------------------------------------------------


def test_host_check_lists_the_models_of_a_standin(qtbot, controller):
    with (
        StandinOllama({"gemma3:1b": Script(), "qwen3:4b": Script()}) as server,
        qtbot.waitSignal(controller.host_checked, timeout=30_000) as checked,
    ):
        controller.check_host(server.url)
    assert checked.args == [server.url, {server.url: ["gemma3:1b", "qwen3:4b"]}]


def test_host_check_of_a_bad_url_fails_with_the_reason(qtbot, controller):
    with qtbot.waitSignal(controller.host_failed, timeout=30_000) as failed:
        controller.check_host("ftp://example.org")
    host, message = failed.args
    assert host == "ftp://example.org" and "scheme must be http or https" in message


def test_a_silent_host_holds_neither_the_gui_nor_the_worker_threads(qtbot, controller):
    """A host that accepts connections but never answers: the check waits on the loop, while
    timers fire and the worker threads (layouts, SQLite reads) stay free."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # connections complete in the backlog; nothing ever replies
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        ticks: list[int] = []
        timer = QTimer()
        timer.timeout.connect(lambda: ticks.append(1))
        timer.start(50)
        task = controller.check_host(url)
        side = controller.tasks.start(in_thread(sum, [1, 2, 3]), "side work")
        wait_for(qtbot, side.done, 10)
        assert side.result() == 6 and not task.done()  # worker threads free meanwhile
        with qtbot.waitSignal(controller.host_checked, timeout=30_000) as checked:
            pass
        timer.stop()
    assert checked.args == [url, {}]  # no server answered
    assert len(ticks) >= 10  # the GUI loop kept running for the ~3 s of waiting


# -- set-up to Campaign -----------------------------------------------------------------------


def setup(**changes) -> CampaignSetup:
    values = dict(
        llms=("random", "oracle"),
        categories=("satisfy",),
        budget=3,
        selection="both",
        repeat=2,
        seed=7,
        wording="all",
        metamorphic=True,
        satisfy_rule="half",
        tolerance=0.1,
        database="results.sqlite",
    )
    values.update(changes)
    return CampaignSetup(**values)


def test_build_campaign_takes_every_choice(model):
    environment, _oracle = model
    made = build_campaign(setup(), environment, "", "goal", "unsafe")
    assert made.environment == "frozen_lake"
    assert (made.llms, made.categories, made.budget) == (("random", "oracle"), ("satisfy",), 3)
    assert (made.selection, made.repeat, made.seed) == ("both", 2, 7)
    assert made.wordings == (0, 1, 2) and made.metamorphic
    assert (made.grading.satisfy_rule, made.grading.satisfy_tolerance) == ("half", 0.1)
    assert build_campaign(setup(wording="1"), environment, "", "", "").wordings == (1,)


def test_build_campaign_says_what_is_missing(model):
    environment, _oracle = model
    with pytest.raises(ExplaincheckError, match="open a model first"):
        build_campaign(setup(), None, "", "", "")
    with pytest.raises(ExplaincheckError, match="at least one applicable category"):
        build_campaign(setup(categories=()), environment, "", "", "")


def test_results_path_makes_the_folder(tmp_path):
    path = results_path(f"  {tmp_path}/new/deeper/r.sqlite ")
    assert path == f"{tmp_path}/new/deeper/r.sqlite"
    assert (tmp_path / "new" / "deeper").is_dir()

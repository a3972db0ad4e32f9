"""The model controller alone (no window): a thin Qt adapter over ``ModelWorkspace``. Its
signals carry the workspace's events, its state is the workspace's, and the window's part
(recent files, remembered sizes, the state limit) is added; a broken file keeps the model."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_helpers import wait_for

from explaincheck.gui.adapters.model_controller import ModelController, size_key
from explaincheck.gui.support.settings import Settings
from explaincheck.gui.support.tasks import Tasks

MODELS = Path(__file__).resolve().parents[1] / "models"
BROKEN = "mdp\nmodule m\n x : [0..1] init 0;\n [a] x=0 -> (x'=);\nendmodule\n"


@pytest.fixture
def controller(qtbot, qloop, tmp_path):
    tasks = Tasks()
    found = ModelController(tasks, Settings(str(tmp_path / "settings.ini")))
    yield found
    found.cancel()
    wait_for(qtbot, lambda: tasks.idle, 30)


def test_signals_carry_the_workspaces_events_and_the_windows_part(qtbot, controller):
    seen: list[str] = []
    controller.environment_changed.connect(lambda environment: seen.append("environment"))
    controller.busy_changed.connect(lambda busy: seen.append(f"busy {busy}"))
    with qtbot.waitSignal(controller.oracle_ready, timeout=60_000) as ready:
        controller.open_spec(str(MODELS / "gambler.prism"), constants="N=3")
    oracle, environment = ready.args
    assert seen == ["environment", "busy True", "busy False"]
    assert controller.oracle is oracle is controller.workspace.oracle
    assert controller.constants == "N=3" and len(oracle.states) == 4
    assert controller.settings.recent_files() == [str(MODELS / "gambler.prism")]
    assert controller.settings.known_size(size_key(environment, "N=3")) == 4
    settings = controller.settings
    settings.save_preferences(type(settings.preferences())(state_limit=3))
    with qtbot.waitSignal(controller.failed, timeout=60_000) as failed:
        controller.rebuild(constants="N=3")  # 4 states over the state limit of Settings
    assert "has 4 states, more than the limit of 3" in str(failed.args[0])
    assert controller.oracle is oracle  # a failed build keeps the oracle before it
    assert controller.workspace.request().state_limit == 3


def test_a_broken_file_is_reported_and_the_open_model_stays(qtbot, controller, tmp_path):
    with qtbot.waitSignal(controller.oracle_ready, timeout=60_000):
        controller.open_spec("frozen_lake")
    good, environment = controller.oracle, controller.environment
    broken = tmp_path / "broken.prism"
    broken.write_text(BROKEN)
    described: list = []
    controller.environment_changed.connect(described.append)
    with qtbot.waitSignal(controller.failed, timeout=60_000) as failed:
        controller.open_spec(str(broken))
    assert ":4:" in str(failed.args[0]) and described == []
    assert controller.oracle is good and controller.environment is environment
    assert controller.last_path == str(broken)  # the error's excerpt points into it
    assert str(broken) not in controller.settings.recent_files()

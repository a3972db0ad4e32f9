"""A large (columnar) oracle: the main window draws its graph without making every state's
facts; the Teach and Campaign tabs take the model up only once they are shown (issue 17), and
then give what they give for any model."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from gui_helpers import wait_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from gridworld import gridworld_prism

SIDE = 40  # 1,600 states: more than the graph draws whole; columnar, as a 10^5 model is


@pytest.fixture
def columnar_grid(tmp_path):
    from explaincheck.core.oracle import compute_in_process
    from explaincheck.core.oracle.columnar import ColumnarStates
    from explaincheck.core.oracle.types import VERIFIED
    from explaincheck.gui.adapters.model_controller import resolve_environment

    prism = tmp_path / f"grid{SIDE}.prism"
    prism.write_text(gridworld_prism(SIDE))
    environment = resolve_environment(str(prism))
    oracle = compute_in_process(environment.request(method=VERIFIED), columnar_from=0)
    assert isinstance(oracle.states, ColumnarStates)
    return environment, oracle


@pytest.fixture
def made(monkeypatch):
    """How many states' facts ``ColumnarStates`` has made."""
    from explaincheck.core.oracle.columnar import ColumnarStates

    calls: list[int] = []
    original = ColumnarStates._make

    def counting(self, state):
        calls.append(state)
        return original(self, state)

    monkeypatch.setattr(ColumnarStates, "_make", counting)
    return calls


def test_hidden_tabs_do_not_make_every_state_of_a_large_model(qtbot, window, columnar_grid, made):
    environment, oracle = columnar_grid
    window.show_tab("graph")
    window.model.environment = environment
    window.model.deliver(oracle)
    wait_for(qtbot, lambda: window.graph.ready and window.graph.oracle is oracle)
    qtbot.wait(300)  # any worker the delivery started has had time to run
    assert len(set(made)) < SIDE * SIDE // 4  # the drawn neighbourhood, not the model
    assert window.teach_view.pending and window.campaign_view.pending

    window.show_tab("teach")
    wait_for(qtbot, lambda: window.teach_view.ready and bool(window.teach_view.order))
    assert not window.teach_view.pending
    assert window.teach_view.graph.oracle is oracle

    window.show_tab("campaign")
    assert not window.campaign_view.pending
    factors = window.campaign_view.category_items["factors"]
    wait_for(qtbot, lambda: "not applicable" in factors.text(0))  # no factors declared
    assert "not applicable" not in window.campaign_view.category_items["satisfy"].text(0)


def test_a_small_model_is_taken_up_at_once_even_in_a_hidden_tab(qtbot, window, columnar_grid):
    from explaincheck.core.oracle import compute_in_process
    from explaincheck.core.oracle.types import VERIFIED

    environment, _ = columnar_grid
    oracle = compute_in_process(environment.request(method=VERIFIED), columnar_from=10**12)
    window.show_tab("graph")
    window.model.environment = environment
    window.model.deliver(oracle)
    assert not window.teach_view.pending and not window.campaign_view.pending
    wait_for(qtbot, lambda: window.teach_view.ready and bool(window.teach_view.order))
    assert window.teach_view.graph.oracle is oracle

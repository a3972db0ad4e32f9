"""The Built-in list shows each environment's number of states, learnt in the background from
the same oracle ``explaincheck envs`` uses, without moving the user's selection."""

from __future__ import annotations

from gui_helpers import wait_for

from explaincheck.core.oracle import compute_oracle
from explaincheck.gui.adapters.model_controller import builtin_environments, size_key

SMALL = ("water_jug", "wolf_goat_cabbage")


def test_the_list_learns_every_size_from_the_oracle(qtbot, window):
    environments = [e for e in builtin_environments() if e.id in SMALL]
    view = window.model_view
    view.set_environments(environments)
    view.builtin.setCurrentRow(1)  # the user looks at the second one meanwhile
    assert all("size not known yet" in view.builtin.item(r).text() for r in range(2))
    task = window.tasks.start(window.model.probe_sizes(environments), "sizes")
    wait_for(qtbot, task.done, 300)
    assert task.exception() is None
    for row, environment in enumerate(environments):
        states = compute_oracle(environment.request()).model.states  # what `envs` prints
        assert states > 1
        assert view.builtin.item(row).text().endswith(f"{environment.id} · {states:,} states")
        assert window.settings.known_size(size_key(environment, environment.constants)) == states
    assert view.builtin.currentRow() == 1


def test_a_remembered_size_is_not_computed_again(qtbot, window):
    environment = next(e for e in builtin_environments() if e.id == SMALL[0])
    window.settings.remember_size(size_key(environment, environment.constants), 12345)
    window.model_view.set_environments([environment])
    task = window.tasks.start(window.model.probe_sizes([environment]), "sizes")
    wait_for(qtbot, task.done, 30)
    assert window.model_view.builtin.item(0).text().endswith("12,345 states")
    assert not window.model.probing


def test_start_probes_sizes_and_closing_the_window_stops_it(qtbot, window):
    window.start(probe_sizes=True)
    wait_for(qtbot, lambda: window.model_presenter.size_probe is not None, 60)
    probe = window.model_presenter.size_probe
    wait_for(qtbot, lambda: window.model.probing or probe.done(), 30)
    window.close()
    wait_for(qtbot, probe.done, 30)
    assert not window.model.probing

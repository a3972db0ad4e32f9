"""Wiring of the Workbench tab into the main window (kept here so the window grows by a call).

``attach_workbench(...)`` is given what it uses, never the window (issue 36): the tasks, the
model controller, the backend settings, the tab widget, the main graph it draws the simulator's
path on and the Teach tab's lesson. It makes the Qt-free ``WorkbenchWorkspace``, the controller
and the view, adds the tab, and connects: the model's oracle to the pages (and the exact
transitions fetched for them), the simulator's path to the graph's path overlay, the editor to
its checks, and the Teach tab's lesson to the handout. The selected state comes and goes through
the window's one selection (``state_selection.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QTabWidget, QWidget

from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import policy_chain
from explaincheck.core.workbench.simulator import Chooser, policy_chooser
from explaincheck.core.workbench.sweep_range import offered_range
from explaincheck.core.workspace.presentation.workbench import WorkbenchWorkspace
from explaincheck.gui.adapters.model_controller import ModelController
from explaincheck.gui.adapters.workbench_controller import WorkbenchController, is_builtin
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.graph_view import GraphView
from explaincheck.gui.views.workbench_view import WorkbenchView

AUTO_OPEN_BYTES = 1 << 20  # a generated model of megabytes opens in the editor only when asked


def loaded_policy_chooser(oracle: OracleResult) -> tuple[Chooser | None, str]:
    """The policy loaded with Open policy… (carried by the oracle) as the simulator's chooser,
    or none when the open model has no policy."""
    chain = policy_chain(oracle)
    if chain is None:
        return None, "a loaded policy"
    choices = {
        state: {action: float(p) for action, p in distribution.items()}
        for state, distribution in chain.policy.choices.items()
    }
    return policy_chooser(choices), f"policy {Path(chain.policy.source).name}"


@dataclass(frozen=True)
class WorkbenchNeighbours:
    """What the Workbench talks to outside its tab: the main graph (the simulator's path) and
    the Teach tab's lesson (a handout case)."""

    graph: GraphView
    lesson: Callable[[], object | None]


def attach_workbench(
    tasks: Tasks,
    model: ModelController,
    settings: Callable[[], BackendSettings],
    tabs: QTabWidget,
    neighbours: WorkbenchNeighbours,
    parent: QWidget,
) -> tuple[WorkbenchView, WorkbenchController]:
    workspace = WorkbenchWorkspace()
    view = WorkbenchView(tasks, workspace, parent)
    controller = WorkbenchController(tasks, model, settings, parent)
    tabs.addTab(view, "Workbench")
    view.lesson_source = neighbours.lesson
    graph = neighbours.graph

    def oracle_ready(oracle: OracleResult, environment: Environment) -> None:
        program = model.program
        undefined = [c.name for c in program.undefined] if program is not None else []
        offered = {name: offered_range(program, name) for name in undefined}
        # a probability first (a teacher's new `const double slip;` beside the lake's N)
        undefined.sort(key=lambda name: not offered[name].probability)
        view.set_model(oracle, environment.title, undefined, offered)
        view.simulator.set_loaded_policy(*loaded_policy_chooser(oracle))
        view.editor.oracle_while_typing = controller.quick()
        controller.load_transitions()
        path = environment.model_path
        untouched = not view.editor.editor.document().isModified()
        small = Path(path).is_file() and Path(path).stat().st_size <= AUTO_OPEN_BYTES
        if untouched and small and not controller.is_scratch(path):
            view.editor.open_source(path, is_builtin(path))  # nothing typed yet: follow the model
        elif controller.is_scratch(path):  # the editor's copy built (Build oracle, constants
            view.editor.show_check(None)  # given): its last error is stale

    def open_source() -> None:
        environment = model.environment
        if environment is None:
            view.editor.status.setText("Open a model first.")
            return
        path = environment.model_path
        if controller.is_scratch(path):  # the open model is this editor's own checked copy
            view.editor.status.setText("Already editing the open model.")
            return
        view.editor.open_source(path, is_builtin(path))

    def checked(error: Any) -> None:
        view.editor.show_check(error, str(controller.folder))

    def save(text: str, path: str) -> None:
        try:
            controller.save(text, path)
        except (ExplaincheckError, OSError) as problem:
            view.editor.status.setText(f"Not saved: {problem}")
            return
        view.editor.saved(path)
        model.note_saved(text, path)  # the Model panel's File line names the saved file

    def failed(what: str, why: str) -> None:
        target = {"sweep": view.sweeps.show_error, "llm": view.simulator.show_error}
        target.get(what, view.simulator.show_error)(why)

    def paths_requested(start: int, k: int) -> None:
        if model.oracle is not None:
            controller.most_probable_paths(model.oracle, start, k, workspace.simulator.transitions)

    model.oracle_ready.connect(oracle_ready)
    controller.transitions_ready.connect(view.set_transitions)
    view.path_changed.connect(graph.show_path)
    view.editor.load_button.clicked.connect(open_source)
    view.editor.check_requested.connect(controller.check)
    view.editor.save_requested.connect(save)
    controller.check_started.connect(view.editor.show_checking)
    controller.checked.connect(checked)
    view.simulator.llm_requested.connect(controller.ask_llm)
    controller.llm_chose.connect(view.simulator.llm_chose)
    view.simulator.paths_requested.connect(paths_requested)
    controller.paths_ready.connect(view.simulator.show_paths)
    view.sweeps.sweep_requested.connect(controller.sweep)
    controller.sweep_progress.connect(view.sweeps.show_progress)
    controller.sweep_ready.connect(view.sweeps.show_sweep)
    controller.failed.connect(failed)
    return view, controller

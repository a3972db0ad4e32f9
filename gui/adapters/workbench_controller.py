"""The teaching workbench's long jobs, off the GUI thread: edit checks, Storm's questions,
sweeps and an LLM as chooser.

Why a controller: the views only say what they want (check this text, sweep this range, ask
this LLM); this runs it (Storm in its isolated children, through worker threads or the qasync
loop) and answers with signals. Edits are checked on a copy in a private temporary folder, so
a built-in environment's own file is never written; an edited model that builds is handed to
the model controller, so the graph and the inspector show it like any other model.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.errors import ExplaincheckError, ModelError
from explaincheck.core.oracle.constants_text import constant_parts, without_constant
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.paths import environments_dir
from explaincheck.core.workspace.presentation.model_errors import unset_constants_text
from explaincheck.gui.adapters.model_controller import ModelController
from explaincheck.gui.support.tasks import Tasks, in_thread

AUTO_ORACLE_SECONDS = 3.0  # re-check the oracle while typing only for models this quick
AUTO_ORACLE_STATES = 20_000
# a sweep with no state to follow looks for flips in every state of models up to this size (it
# keeps every point's oracle and A* of each state); larger ones follow the initial state alone
FOLLOW_ALL_STATES = 2_000
# Calls that wait on a Storm child go to asyncio's default threads (``asyncio.to_thread``), not to
# the two workers that graph layouts use: a sweep of a hundred points must not hold a layout up.


def is_builtin(path: str | Path) -> bool:
    """Whether ``path`` lies in the built-in environments' folder (never written)."""
    try:
        Path(path).resolve().relative_to(environments_dir().resolve())
    except ValueError:
        return False
    return True


class WorkbenchController(QObject):
    checked = Signal(object)  # None (the text builds) or the ModelError to show
    check_started = Signal(str)  # what is being checked, in words
    transitions_ready = Signal(object)  # Transitions of the current model
    paths_ready = Signal(object)  # list[RankedPath]
    llm_chose = Signal(str, int)  # action, state
    sweep_progress = Signal(int, int)
    sweep_ready = Signal(object)  # Sweep
    failed = Signal(str, str)  # what, one line why

    def __init__(
        self,
        tasks: Tasks,
        model: ModelController,
        settings: Callable[[], BackendSettings],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.tasks = tasks
        self.model = model
        self.settings = settings
        self.folder = Path(tempfile.mkdtemp(prefix="explaincheck-edit-"))
        self._check: asyncio.Task | None = None
        self._transitions: dict[OracleRequest, object] = {}

    # -- the current model -----------------------------------------------------------------
    def request(self) -> OracleRequest | None:
        environment = self.model.environment
        if environment is None:
            return None
        return environment.request(
            constants=self.model.constants,
            goal_label=self.model.goal_label,
            unsafe_label=self.model.unsafe_label,
            state_limit=self.model.state_limit(),
            property=self.model.chosen_property,  # the sweep computes V of the property in use
        )

    def quick(self) -> bool:
        """Whether the open model builds fast enough to re-check the oracle while typing."""
        oracle = self.model.oracle
        if oracle is None:
            return True
        return oracle.model.states <= AUTO_ORACLE_STATES and (
            oracle.from_cache or oracle.seconds <= AUTO_ORACLE_SECONDS
        )

    # -- editing ---------------------------------------------------------------------------
    def is_scratch(self, path: str | Path) -> bool:
        return Path(path).resolve().parent == self.folder.resolve()

    def scratch_path(self, name: str) -> Path:
        return self.folder / (Path(name).name or "model.prism")

    def check(self, text: str, name: str, with_oracle: bool) -> asyncio.Task:
        """Parse ``text`` (saved as a scratch copy) in Storm's child; when it parses and
        ``with_oracle``, build its oracle and make it the open model."""
        if self._check is not None and not self._check.done():
            self._check.cancel()
        self._check = self.tasks.start(self._run_check(text, name, with_oracle), "check edit")
        return self._check

    async def _run_check(self, text: str, name: str, with_oracle: bool) -> None:
        from explaincheck.core.oracle import compute_oracle_async
        from explaincheck.core.oracle.program import describe_program

        path = self.scratch_path(name)
        await in_thread(path.write_text, text, "utf-8")
        self.check_started.emit("syntax")
        try:
            program = await asyncio.to_thread(describe_program, str(path))
        except ModelError as error:
            self.checked.emit(error)
            return
        environment = self.model.environment
        if not with_oracle or environment is None:
            self.checked.emit(None)
            return
        try:
            given = [given_name for given_name, _ in constant_parts(self.model.constants)]
        except ValueError:
            given = []
        missing = program.missing_constants(given)
        edited = replace(environment, model_path=str(path))
        # the file this is an edit of (a second edit of the copy still edits the first file)
        edit_of = self.model.edits.get(environment.model_path, environment.model_path)
        if missing:  # a teacher's new `const double slip;`: where to give it, in the window;
            # Build oracle then builds this copy with the value given
            self.model.take_edit(edited, program, edit_of)
            self.checked.emit(ModelError(unset_constants_text([c.name for c in missing])))
            return
        request = edited.request(
            constants=self.model.constants,
            goal_label=self.model.goal_label,
            unsafe_label=self.model.unsafe_label,
            property=self.model.chosen_property,  # an edit keeps the property in use
        )
        self.check_started.emit("oracle")
        try:
            oracle = await compute_oracle_async(request)
        except ExplaincheckError as error:
            self.checked.emit(error if isinstance(error, ModelError) else ModelError(str(error)))
            return
        self.checked.emit(None)
        self.model.take_edit(edited, program, edit_of)
        self.model.deliver(oracle)

    def save(self, text: str, path: str) -> None:
        """Write the source to ``path`` (refusing the built-in environments' files)."""
        if is_builtin(path):
            raise ExplaincheckError(
                f"{path} is a built-in environment's model: save the copy elsewhere"
            )
        from explaincheck.core.atomic_files import write_text_atomically

        write_text_atomically(path, text)

    # -- Storm's answers -------------------------------------------------------------------
    def load_transitions(self) -> asyncio.Task | None:
        request = self.request()
        if request is None:
            return None
        return self.tasks.start(self._transitions_of(request), "exact transitions")

    async def _transitions_of(self, request: OracleRequest) -> None:
        from explaincheck.core.workbench.transitions import load_transitions

        try:
            found = await asyncio.to_thread(load_transitions, request)
        except ExplaincheckError as error:
            self.failed.emit("transitions", str(error))
            return
        self.transitions_ready.emit(found)

    def most_probable_paths(
        self, oracle: OracleResult, start: int, k: int, transitions: Any
    ) -> None:
        request = self.request()
        if request is None:
            return
        self.tasks.start(self._paths(request, oracle, start, k, transitions), "k paths")

    async def _paths(self, request: Any, oracle: Any, start: Any, k: Any, transitions: Any) -> None:
        from explaincheck.core.workbench.paths import k_most_probable

        try:
            found = await asyncio.to_thread(k_most_probable, request, oracle, start, k, transitions)
        except ExplaincheckError as error:
            self.failed.emit("paths", str(error))
            return
        self.paths_ready.emit(found)

    def ask_llm(self, spec: str, state: int) -> None:
        self.tasks.start(self._ask(spec, state), "ask LLM for an action")

    async def _ask(self, spec: str, state: int) -> None:
        from explaincheck.core.workbench.llm_choice import llm_best_action

        oracle, environment = self.model.oracle, self.model.environment
        if oracle is None or environment is None:
            return
        try:
            action = await llm_best_action(spec, state, oracle, environment, self.settings())
        except ExplaincheckError as error:
            self.failed.emit("llm", str(error))
            return
        self.llm_chose.emit(action, state)

    def sweep(self, text: str, states: tuple[int, ...]) -> None:
        """Sweep ``text`` (NAME=LO:HI:STEP), following ``states`` of the open model (none
        given: every state, and the page then follows those whose best action flips; over
        ``FOLLOW_ALL_STATES`` states, the initial state alone)."""
        request = self.request()
        oracle = self.model.oracle
        if request is None or oracle is None:
            return
        chosen: tuple[int, ...] | None = states or None
        if chosen is None and oracle.model.states > FOLLOW_ALL_STATES:
            chosen = (oracle.model.initial,)
        self.tasks.start(self._sweep(request, text, chosen, oracle), "sweep")

    async def _sweep(
        self,
        request: OracleRequest,
        text: str,
        states: tuple[int, ...] | None,
        named_by: OracleResult,
    ) -> None:
        from explaincheck.core.workbench.sweep import parse_range
        from explaincheck.core.workbench.sweep_run import run_sweep

        loop = asyncio.get_running_loop()

        def progress(done: int, total: int, _point: Any) -> None:
            loop.call_soon_threadsafe(self.sweep_progress.emit, done, total)

        try:
            sweep_range = parse_range(text)
            base = replace(request, constants=without_constant(request.constants, sweep_range.name))
            result = await asyncio.to_thread(
                run_sweep, base, sweep_range, states, on_point=progress, named_by=named_by
            )
        except ExplaincheckError as error:
            self.failed.emit("sweep", str(error))
            return
        self.sweep_ready.emit(result)

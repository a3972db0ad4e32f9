"""The Qt face of the open model: a ``ModelWorkspace`` (core/workspace/model.py) whose events
become signals, its opening and building started as tasks on the window's loop.

The workspace holds "the current model" (which environment, constants and labels, the oracle
once built) and its rules; this adapter adds only what belongs to the window: the settings
(recent files, remembered sizes, the state limit), keeping a new oracle out of the garbage
collector, and the built-ins' size probe. Views call it and listen to its signals; it never
touches widgets (dialogs are asked for through the ``ask_constants`` callback the window
supplies).
"""

from __future__ import annotations

import asyncio
import gc
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.program import ProgramDescription
from explaincheck.core.oracle.property import Property
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.model import AskConstants, ModelChoices, ModelWorkspace
from explaincheck.core.workspace.selection import StateSelection
from explaincheck.gui.support.settings import Settings
from explaincheck.gui.support.tasks import Tasks, in_thread

__all__ = ["AskConstants", "ModelChoices", "ModelController", "builtin_environments", "size_key"]


def builtin_environments() -> list[Environment]:
    """The built-in environments (empty when the registry cannot be read)."""
    from explaincheck.core.environments.registry import list_builtin, load_builtin

    found = []
    for entry in list_builtin():
        found.append(entry if isinstance(entry, Environment) else load_builtin(str(entry)))
    return found


def resolve_environment(spec: str) -> Environment:
    """A built-in id or a PRISM file path -> Environment (generic wording for plain files)."""
    from explaincheck.core.environments.registry import resolve

    return resolve(spec)


def size_key(environment: Environment, constants: str) -> str:
    name = environment.id or Path(environment.model_path).name
    return f"{name}|{constants}".replace("/", "_")


def keep_out_of_gc() -> None:
    """Move every object alive now (the new oracle's millions of facts and dicts among them) out
    of the cyclic garbage collector's reach. Its full collections would otherwise walk them all,
    stalling the GUI thread for half a second at 10^5 states every time one runs. The oracle is
    acyclic, so reference counting still frees it when the next one replaces it."""
    gc.freeze()


class ModelController(QObject):
    """State machine: nothing -> described -> building -> ready | failed | cancelled (the
    workspace's); its state is read and set through the properties below."""

    environment_changed = Signal(object)  # Environment (before the oracle exists)
    busy_changed = Signal(bool)
    oracle_ready = Signal(object, object)  # OracleResult, Environment
    failed = Signal(object)  # the exception (ExplaincheckError for user problems)
    cancelled = Signal()
    progress = Signal(str)  # the running oracle's phase, counts, time and memory, in words
    sizes_changed = Signal()  # a built-in's number of states was learnt (``probe_sizes``)
    property_refused = Signal(str)  # a chosen property, refused: one line (the old one stays)
    file_line_changed = Signal()  # the open Workbench edit was saved (``note_saved``)

    def __init__(
        self, tasks: Tasks, settings: Settings, ask_constants: AskConstants | None = None
    ) -> None:
        super().__init__()
        self.tasks = tasks
        self.settings = settings
        self.workspace = ModelWorkspace(
            ask_constants=ask_constants, state_limit=self.state_limit, offload=in_thread
        )
        self.probing = False  # whether ``probe_sizes`` is still learning sizes
        self.edits: dict[str, str] = {}  # the Workbench's checked copy -> the file it edits
        self.saved_as: dict[str, str] = {}  # a checked copy -> the file its text was saved to
        events = self.workspace.events  # all emitted on the window's loop, the GUI thread
        events.environment.connect(self._described)
        events.busy.connect(self.busy_changed.emit)
        events.oracle.connect(self._ready)
        events.failed.connect(self.failed.emit)
        events.cancelled.connect(self.cancelled.emit)
        events.progress.connect(self._report)
        events.property_refused.connect(self.property_refused.emit)

    # -- the workspace's state -------------------------------------------------------------
    @property
    def environment(self) -> Environment | None:
        return self.workspace.environment

    @environment.setter
    def environment(self, environment: Environment | None) -> None:  # the wording editor's
        self.workspace.environment = environment

    def take_edit(
        self, environment: Environment, program: ProgramDescription, edit_of: str = ""
    ) -> None:
        """The Workbench editor's checked copy is the open model's file from now on, with its
        own declarations (a constant typed there is one the Sweep page offers); ``edit_of``:
        the file it is an edited copy of (the Model panel's File line names both)."""
        if edit_of:
            self.edits[environment.model_path] = edit_of
        self.saved_as.pop(environment.model_path, None)  # the copy was written anew
        self.workspace.environment, self.workspace.program = environment, program
        self.workspace.last_path = environment.model_path

    def file_line(self, environment: Environment) -> str:
        """What the Model panel's File line says of the open model's file: an edited copy is
        named as the unsaved edit of the file it was copied from, not as that file."""
        path = environment.model_path
        original = self.edits.get(path)
        if original is None:
            return path
        saved = self.saved_as.get(path)
        if saved is not None:
            return f"Workbench edit of {original}, saved as {saved} (checked copy: {path})"
        return f"Unsaved Workbench edit of {original} (checked copy: {path})"

    def note_saved(self, text: str, path: str) -> None:
        """The Workbench saved ``text`` to ``path``: where that is the text of the open model's
        checked copy, the File line names the saved file from now on (an editor text changed
        since the last check is not the open model, which stays unsaved)."""
        environment = self.environment
        if environment is None or environment.model_path not in self.edits:
            return
        copy = Path(environment.model_path)
        try:
            same = copy.read_text(encoding="utf-8") == text
        except OSError:
            same = False
        if same:
            self.saved_as[environment.model_path] = path
            self.file_line_changed.emit()

    @property
    def oracle(self) -> OracleResult | None:
        return self.workspace.oracle

    @oracle.setter
    def oracle(self, oracle: OracleResult | None) -> None:  # one with a policy attached
        self.workspace.oracle = oracle

    @property
    def selection(self) -> StateSelection:
        """The one selected state every view follows (``gui/presenters/state_selection.py``)."""
        return self.workspace.selection

    @property
    def program(self) -> ProgramDescription | None:
        return self.workspace.program

    @property
    def constants(self) -> str:
        return self.workspace.constants

    @property
    def goal_label(self) -> str:
        return self.workspace.goal_label

    @property
    def unsafe_label(self) -> str:
        return self.workspace.unsafe_label

    @property
    def chosen_property(self) -> Property | None:
        """The property V is computed for (None: Pmax=? [F goal] of the Goal box)."""
        return self.workspace.property

    @property
    def property_spec(self) -> str:
        """The ``--property`` text the property in use was chosen by ("": none)."""
        return self.workspace.property_spec

    @property
    def last_path(self) -> str | None:
        return self.workspace.last_path

    @last_path.setter
    def last_path(self, path: str | None) -> None:
        self.workspace.last_path = path

    @property
    def ask_constants(self) -> AskConstants | None:
        return self.workspace.ask_constants

    @ask_constants.setter
    def ask_constants(self, ask: AskConstants | None) -> None:
        self.workspace.ask_constants = ask

    @property
    def busy(self) -> bool:
        return self.workspace.busy

    # -- opening and building (tasks on the window's loop) ---------------------------------
    def open_spec(
        self,
        spec: str,
        *,
        constants: str = "",
        goal_label: str = "",
        unsafe_label: str = "",
        property: str = "",
    ) -> asyncio.Task:
        """Open a built-in id or a file path (the command line's --env), with constants added
        to the model's own and other goal/unsafe labels or a property (--const, --goal,
        --unsafe, --property; a results file's campaign) where given."""
        choices = ModelChoices(constants, goal_label, unsafe_label, property=property)
        return self.tasks.start(self.workspace.open_spec(spec, choices), "open model")

    def open_environment(self, environment: Environment) -> asyncio.Task:
        return self.tasks.start(self.workspace.open_environment(environment), "open model")

    def rebuild(
        self,
        constants: str | None = None,
        goal_label: str | None = None,
        unsafe_label: str | None = None,
    ) -> asyncio.Task | None:
        """Build again with changed constants or labels."""
        if self.environment is None:
            return None
        build = self.workspace.rebuild(constants, goal_label, unsafe_label)
        return self.tasks.start(build, "build oracle")

    def choose_property(self, spec: str) -> asyncio.Task:
        """Compute the oracle under the property ``spec`` (``--property`` text; "": the Goal
        box's Pmax=? [F goal]); a refused one is ``property_refused``, the old one stays."""
        return self.tasks.start(self.workspace.choose_property(spec), "build oracle")

    def deliver(self, oracle: OracleResult) -> None:
        """Make ``oracle`` the current one and tell the views."""
        self.workspace.deliver(oracle)

    def cancel(self) -> None:
        """Stop a running build (the oracle's child process is killed)."""
        self.workspace.cancel()

    def state_limit(self) -> int:
        """The state limit of Settings: a model with more states is refused while it builds."""
        return self.settings.preferences().state_limit

    # -- the workspace's events, with the window's part ------------------------------------
    def _described(self, environment: Environment) -> None:
        if environment.id is None:
            self.settings.add_recent_file(os.path.abspath(environment.model_path))
        self.environment_changed.emit(environment)

    def _ready(self, oracle: OracleResult, environment: Environment) -> None:
        keep_out_of_gc()
        self.settings.remember_size(size_key(environment, self.constants), len(oracle.states))
        self.oracle_ready.emit(oracle, environment)

    def _report(self, progress: Any) -> None:
        """Oracle progress (on the event loop's thread) as one status-bar line."""
        counts = ", ".join(f"{value:,} {name}" for name, value in progress.counts.items() if value)
        minutes, seconds = divmod(int(progress.seconds), 60)
        self.progress.emit(
            f"Oracle: {progress.phase}"
            + (f" ({counts})" if counts else "")
            + f" · {minutes}:{seconds:02d} · {progress.memory / (1 << 20):,.0f} MB"
        )

    async def probe_sizes(self, environments: list[Environment]) -> None:
        """Learn the number of states of every built-in whose size is not remembered yet, from
        the source ``explaincheck envs`` uses: its oracle with the default constants, computed
        in the isolated child (then cached on disk), one at a time and never beside the user's
        own build. A built-in whose oracle fails is skipped: opening it shows the error."""
        from explaincheck.core.oracle import compute_oracle_async

        self.probing = True
        self.sizes_changed.emit()
        try:
            for environment in environments:
                key = size_key(environment, environment.constants)
                if self.settings.known_size(key):
                    continue
                while self.busy:
                    await asyncio.sleep(0.5)
                try:
                    oracle = await compute_oracle_async(environment.request())
                except ExplaincheckError:
                    continue
                self.settings.remember_size(key, oracle.model.states)
                self.sizes_changed.emit()
        finally:
            self.probing = False
            self.sizes_changed.emit()  # sizes still unknown now read so

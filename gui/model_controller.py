"""Opening a model and building its oracle off the GUI thread, with cancel.

The controller owns "the current model": which environment, constants and labels, and the oracle
once built. Views call it and listen to its signals; it never touches widgets (dialogs are asked
for through the ``ask_constants`` callback the window supplies).
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from explaincheck.core.environments.loader import constant_text, format_constants, parse_constants
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError, ModelError
from explaincheck.core.oracle.program import ProgramConstant, ProgramDescription, describe_program
from explaincheck.core.oracle.types import OracleResult
from explaincheck.gui.settings import Settings
from explaincheck.gui.tasks import Tasks, in_thread


@dataclass(frozen=True)
class ModelChoices:
    """What the command line or a results file sets on the model it opens ("" = its own)."""

    constants: str = ""
    goal_label: str = ""
    unsafe_label: str = ""


AskConstants = Callable[[list[ProgramConstant], dict[str, str]], Awaitable[dict[str, str] | None]]


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
    """State machine: nothing -> described -> building -> ready | failed | cancelled."""

    environment_changed = Signal(object)  # Environment (before the oracle exists)
    busy_changed = Signal(bool)
    oracle_ready = Signal(object, object)  # OracleResult, Environment
    failed = Signal(object)  # the exception (ExplaincheckError for user problems)
    cancelled = Signal()
    progress = Signal(str)  # the running oracle's phase, counts, time and memory, in words
    sizes_changed = Signal()  # a built-in's number of states was learnt (``probe_sizes``)

    def __init__(
        self, tasks: Tasks, settings: Settings, ask_constants: AskConstants | None = None
    ) -> None:
        super().__init__()
        self.tasks = tasks
        self.settings = settings
        self.ask_constants = ask_constants
        self.environment: Environment | None = None
        self.oracle: OracleResult | None = None
        self.program: ProgramDescription | None = None  # what the open PRISM file declares
        self.constants = ""
        self.goal_label = "goal"
        self.unsafe_label = "unsafe"
        self._build_task: asyncio.Task | None = None
        self.last_path: str | None = None  # the file last opened (error excerpts point into it)
        self.probing = False  # whether ``probe_sizes`` is still learning sizes

    @property
    def busy(self) -> bool:
        return self._build_task is not None and not self._build_task.done()

    # -- opening ---------------------------------------------------------------------------
    def open_spec(
        self, spec: str, *, constants: str = "", goal_label: str = "", unsafe_label: str = ""
    ) -> asyncio.Task:
        """Open a built-in id or a file path (the command line's --env), with constants added
        to the model's own and other goal/unsafe labels (--const, --goal, --unsafe; a results
        file's campaign) where given."""
        choices = ModelChoices(constants, goal_label, unsafe_label)
        return self.tasks.start(self._open_spec(spec, choices), "open model")

    def open_environment(self, environment: Environment) -> asyncio.Task:
        return self.tasks.start(self._open(environment), "open model")

    async def _open_spec(self, spec: str, choices: ModelChoices | None = None) -> None:
        self.last_path = spec if Path(spec).is_file() else None
        try:
            environment = await in_thread(resolve_environment, spec)
        except ExplaincheckError as error:
            self.failed.emit(error)
            return
        except Exception as error:  # a bug in wording code must not take the window down
            self.failed.emit(ModelError(f"cannot open {spec}: {error}"))
            return
        await self._open(environment, choices)

    async def _open(self, environment: Environment, choices: ModelChoices | None = None) -> None:
        self.cancel()
        self.last_path = environment.model_path
        if environment.id is None:
            self.settings.add_recent_file(os.path.abspath(environment.model_path))
        self.environment = environment
        self.oracle = None
        self.program = None
        self.constants = environment.constants
        self.goal_label = environment.goal_label
        self.unsafe_label = environment.unsafe_label
        if choices is not None:
            self._choose(choices)
        try:  # Storm's parser, in the oracle's isolated child (cached by file content)
            self.program = await in_thread(describe_program, environment.model_path)
            given = parse_constants(self.constants)
        except ExplaincheckError as error:
            self.environment_changed.emit(environment)
            self.failed.emit(error)
            return
        self.environment_changed.emit(environment)
        missing = self.program.missing_constants(given)
        if missing:
            if self.ask_constants is None:
                names = ", ".join(c.name for c in missing)
                self.failed.emit(ModelError(f"undefined constants {names}: give their values"))
                return
            defaults = {name: constant_text(value) for name, value in given.items()}
            values = await self.ask_constants(list(missing), defaults)
            if values is None:
                self.cancelled.emit()
                return
            answered = ",".join(f"{name}={text}" for name, text in values.items() if text)
            given.update(parse_constants(answered))
            self.constants = format_constants(given)
            self.environment_changed.emit(environment)
        await self._start_build()

    def _choose(self, choices: ModelChoices) -> None:
        """Constants given on top of the model's (a bad one is the build's error to report)
        and the labels given."""
        if choices.constants:
            try:
                values = parse_constants(self.constants)
                values.update(parse_constants(choices.constants))
                self.constants = format_constants(values)
            except ExplaincheckError:
                self.constants = ",".join(c for c in (self.constants, choices.constants) if c)
        self.goal_label = choices.goal_label or self.goal_label
        self.unsafe_label = choices.unsafe_label or self.unsafe_label

    # -- building --------------------------------------------------------------------------
    def rebuild(
        self,
        constants: str | None = None,
        goal_label: str | None = None,
        unsafe_label: str | None = None,
    ) -> asyncio.Task | None:
        """Build again with changed constants or labels."""
        if self.environment is None:
            return None
        if constants is not None:
            self.constants = constants
        if goal_label:
            self.goal_label = goal_label
        if unsafe_label:
            self.unsafe_label = unsafe_label
        return self.tasks.start(self._start_build(), "build oracle")

    async def _start_build(self) -> None:
        self.cancel()
        me = asyncio.current_task()
        self._build_task = me
        self.busy_changed.emit(True)
        try:
            oracle = await self._compute()
        except asyncio.CancelledError:
            if self._build_task is me:  # not replaced by a newer build
                self.cancelled.emit()
            raise
        except Exception as error:  # user errors and bugs alike end up in the window
            if self._build_task is me:
                self.failed.emit(error)
            return
        finally:
            if self._build_task is me:
                self._build_task = None
                self.busy_changed.emit(False)
        if self._build_task is not None:  # a newer build started meanwhile
            return
        self.deliver(oracle)

    def deliver(self, oracle: OracleResult) -> None:
        """Make ``oracle`` the current one and tell the views."""
        assert self.environment is not None
        self.oracle = oracle
        keep_out_of_gc()
        self.settings.remember_size(size_key(self.environment, self.constants), len(oracle.states))
        self.oracle_ready.emit(oracle, self.environment)

    async def _compute(self) -> OracleResult:
        from explaincheck.core.oracle import compute_oracle_async

        assert self.environment is not None
        request = self.environment.request(
            constants=self.constants,
            goal_label=self.goal_label,
            unsafe_label=self.unsafe_label,
            state_limit=self.state_limit(),
        )
        return await compute_oracle_async(request, on_progress=self._report)

    def state_limit(self) -> int:
        """The state limit of Settings: a model with more states is refused while it builds."""
        return self.settings.preferences().state_limit

    def _report(self, progress) -> None:
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

    def cancel(self) -> None:
        """Stop a running build (the oracle's child process is killed)."""
        task = self._build_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

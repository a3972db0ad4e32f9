"""The open model: which environment, constants and labels, what its PRISM file declares, and
its oracle once built; opening, re-building and cancelling, with plain callbacks.

Why one object for every front end: the GUI's model panel, ``api.open_model`` and the tests all
open "an environment with these constants and labels" and wait for its oracle. The rules (which
constants win, when the user is asked for missing ones, that a newer build replaces an older
one, that a file which does not parse leaves the model open before it as it was) are written
once here; the GUI's ``ModelController`` only turns the events into Qt signals.

State machine: nothing -> described -> building -> ready | failed | cancelled. Every method
runs on one event loop (the GUI's qasync loop, or ``asyncio.run`` for the API), and the events
are emitted on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explaincheck.core.environments.loader import constant_text, format_constants, parse_constants
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError, ModelError
from explaincheck.core.oracle.program import ProgramConstant, ProgramDescription, describe_program
from explaincheck.core.oracle.property import Property
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.workspace.events import Event
from explaincheck.core.workspace.selection import StateSelection

AskConstants = Callable[[list[ProgramConstant], dict[str, str]], Awaitable[dict[str, str] | None]]
# Runs a blocking function off the event loop (the GUI passes its own bounded worker pool).
Offload = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class ModelChoices:
    """What the command line, the API or a results file sets on the model it opens ("" = its
    own). ``strict`` is the meaning of ``run --const``/``--unsafe`` and of the API: given
    constants replace the model's own (a campaign records them so, and re-grading recomputes
    the same oracle), and a named unsafe label must exist. Otherwise (the GUI) given constants
    are added to the model's own, and a missing unsafe label means "no unsafe states"."""

    constants: str = ""
    goal_label: str = ""
    unsafe_label: str = ""
    strict: bool = False
    # ``--property``: PRISM text, FILE.props[:NAME] or the name of one of the model's own ("":
    # Pmax=? [F goal]); its target is the goal
    property: str = ""


class GoalToChoose(ModelError):
    """A model opened without a goal named, whose file has no label of the default name: the
    front end offers the file's own labels instead of a command-line hint (issue 39)."""

    def __init__(self, default: str, labels: tuple[str, ...]) -> None:
        offered = ", ".join(labels) if labels else "none"
        super().__init__(
            f'this model has no label "{default}"; choose its goal: one of its labels'
            f" ({offered}) or an expression over its variables, such as x=3"
        )
        self.default = default
        self.labels = labels


class ModelEvents:
    """What a ``ModelWorkspace`` tells its listeners (the values each callback receives)."""

    def __init__(self) -> None:
        self.environment = Event("environment")  # (Environment): described, before its oracle
        self.busy = Event("busy")  # (bool): a build started or ended
        self.oracle = Event("oracle")  # (OracleResult, Environment): the current oracle
        self.failed = Event("failed")  # (exception): ExplaincheckError for the user's problems
        self.cancelled = Event("cancelled")  # (): a build was cancelled, or constants not given
        self.progress = Event("progress")  # (OracleProgress): the running build's phase
        # (str): a chosen property was refused (cannot be read, or its oracle cannot be
        # computed); one line, and the property before it stays in use with its oracle
        self.property_refused = Event("property_refused")


class ModelWorkspace:
    """The current model and its oracle; ``events`` says when they change."""

    def __init__(
        self,
        *,
        ask_constants: AskConstants | None = None,
        state_limit: Callable[[], int] | None = None,
        offload: Offload | None = None,
    ) -> None:
        self.events = ModelEvents()
        self.ask_constants = ask_constants  # None: missing constants are an error
        self.state_limit = state_limit  # read at each build; None: the oracle's default
        self._offload: Offload = offload or asyncio.to_thread
        self.environment: Environment | None = None
        self.program: ProgramDescription | None = None  # what the open PRISM file declares
        self.constants = ""
        self.goal_label = "goal"
        self.unsafe_label = "unsafe"
        self.require_unsafe = False
        self.property: Property | None = None  # the property V is computed for (None: Pmax F goal)
        self.property_spec = ""  # the --property text it was chosen by ("": none)
        self.oracle: OracleResult | None = None
        self.selection = StateSelection()  # the one selected state every view follows
        self.last_path: str | None = None  # the file last asked for (error excerpts point there)
        self.error: BaseException | None = None  # why the last open or build failed
        self._build_task: asyncio.Task | None = None

    @property
    def busy(self) -> bool:
        return self._build_task is not None and not self._build_task.done()

    # -- opening ---------------------------------------------------------------------------
    async def open_spec(
        self, spec: str, choices: ModelChoices | None = None
    ) -> OracleResult | None:
        """Open a built-in id or a PRISM file path and build its oracle (None: it failed, see
        ``error``, or was cancelled)."""
        from explaincheck.core.environments.registry import resolve

        self.last_path = spec if Path(spec).is_file() else None
        try:
            environment = await self._offload(resolve, spec)
        except ExplaincheckError as error:
            self._fail(error)
            return None
        except Exception as error:  # a bug in wording code must not take the front end down
            self._fail(ModelError(f"cannot open {spec}: {error}"))
            return None
        return await self.open_environment(environment, choices)

    async def open_checked(self, spec: str, choices: ModelChoices | None = None) -> OracleResult:
        """``open_spec`` for the command line and the API: the oracle, or its error raised (it
        is told through ``events.failed`` too)."""
        oracle = await self.open_spec(spec, choices)
        if oracle is not None:
            return oracle
        if self.error is not None:
            raise self.error
        raise ExplaincheckError(f"opening {spec} was cancelled")

    async def open_environment(
        self, environment: Environment, choices: ModelChoices | None = None
    ) -> OracleResult | None:
        """Make ``environment`` the open model (with ``choices`` over its own constants and
        labels) once its PRISM file parses, ask for constants it leaves undefined, and build."""
        self.cancel()
        self.last_path = environment.model_path
        constants, goal, unsafe = _chosen(environment, choices or ModelChoices())
        prop = None
        try:  # Storm's parser, in the oracle's isolated child (cached by file content)
            if choices is not None and choices.property:
                prop, constants = environment.resolve_property(choices.property, constants)
                goal = prop.goal_text
            program = await self._offload(describe_program, environment.model_path)
            given = parse_constants(constants)
        except ExplaincheckError as error:
            self._fail(error)  # the model open before stays as it was
            return None
        self.environment, self.program, self.oracle = environment, program, None
        self.selection.forget()  # another model: its first oracle starts at the initial state
        self.constants, self.goal_label, self.unsafe_label = constants, goal, unsafe
        self.property = prop
        self.property_spec = choices.property if choices is not None and prop else ""
        self.require_unsafe = bool(choices and choices.strict and choices.unsafe_label)
        self.error = None
        labels = tuple(program.label_names)
        # a file without a label of the default goal name, opened with no goal named: ask
        named = choices and (choices.goal_label or choices.strict or prop)
        unnamed = not named and goal not in labels
        if unnamed:
            self.goal_label = ""
        self.events.environment.emit(environment)
        if unnamed:
            self._fail(GoalToChoose(goal, labels))
            return None
        missing = program.missing_constants(given)
        if missing:
            if self.ask_constants is None:
                names = ", ".join(c.name for c in missing)
                example = ",".join(f"{c.name}=..." for c in missing)
                self._fail(
                    ModelError(
                        f"undefined constants {names}: give their values with --const {example}"
                    )
                )
                return None
            defaults = {name: constant_text(value) for name, value in given.items()}
            values = await self.ask_constants(list(missing), defaults)
            if values is None:
                self.events.cancelled.emit()
                return None
            answered = ",".join(f"{name}={text}" for name, text in values.items() if text)
            given.update(parse_constants(answered))
            self.constants = format_constants(given)
            self.events.environment.emit(environment)
        return await self._build()

    # -- building --------------------------------------------------------------------------
    async def rebuild(
        self,
        constants: str | None = None,
        goal_label: str | None = None,
        unsafe_label: str | None = None,
    ) -> OracleResult | None:
        """Build again with changed constants or labels (None: nothing open, or it failed)."""
        if self.environment is None:
            return None
        if constants is not None:
            self.constants = constants
        self.goal_label = goal_label or self.goal_label
        self.unsafe_label = unsafe_label or self.unsafe_label
        if not self.goal_label:  # still none chosen for a file without a "goal" label
            labels = self.program.label_names if self.program else ()
            self._fail(GoalToChoose(self.environment.goal_label, tuple(labels)))
            return None
        return await self._build()

    async def choose_property(self, spec: str) -> OracleResult | None:
        """Compute the oracle of the open model under the property ``spec`` (``--property``
        text: PRISM text, FILE.props[:NAME] or the name of one of the environment's own; "":
        Pmax=? [F goal] of the Goal box), as ``--property`` does on the command line.

        A property that cannot be read, or whose oracle cannot be computed (an unsupported
        form, a missing rewards block, a form the pipeline does not compute yet), is refused:
        ``events.property_refused`` says why in one line, and the property and oracle before it
        stay in use (no ``failed`` event: the model itself is fine)."""
        environment = self.environment
        if environment is None:
            self.events.property_refused.emit("open a model first")
            return None
        spec = spec.strip()
        before = (self.property, self.property_spec, self.goal_label, self.constants)
        try:
            if spec:
                prop, constants = environment.resolve_property(spec, self.constants)
            else:
                prop, constants = None, self.constants
        except ExplaincheckError as error:
            self.events.property_refused.emit(str(error))
            return None
        refused: list[BaseException] = []
        self.property, self.property_spec, self.constants = prop, spec, constants
        if prop is not None:
            self.goal_label = prop.goal_text
        try:
            oracle = await self._build(fail=refused.append)
        except asyncio.CancelledError:
            if self._build_task is None:  # cancelled, not replaced by a newer build
                self._restore(before)
            raise
        if oracle is None and self._build_task is None:
            self._restore(before)
            if refused:
                self.events.property_refused.emit(_one_line(refused[0]))
        return oracle

    def _restore(self, before: tuple[Property | None, str, str, str]) -> None:
        self.property, self.property_spec, self.goal_label, self.constants = before

    def request(self) -> OracleRequest:
        """The oracle request of the open model as it stands."""
        if self.environment is None:
            raise ExplaincheckError("open a model first")
        limit = {} if self.state_limit is None else {"state_limit": self.state_limit()}
        return self.environment.request(
            constants=self.constants,
            goal_label=self.goal_label,
            unsafe_label=self.unsafe_label,
            require_unsafe=self.require_unsafe,
            property=self.property,
            **limit,
        )

    async def _build(
        self, fail: Callable[[BaseException], None] | None = None
    ) -> OracleResult | None:
        """Compute the oracle; a newer build (or open) replaces this one without a word.
        ``fail`` hears why it failed (default: ``events.failed``)."""
        from explaincheck.core.oracle import compute_oracle_async

        self.cancel()
        me = asyncio.current_task()
        self._build_task = me
        self.events.busy.emit(True)
        try:
            request = self.request()
            oracle = await compute_oracle_async(request, on_progress=self.events.progress.emit)
        except asyncio.CancelledError:
            if self._build_task is me:  # not replaced by a newer build
                self.events.cancelled.emit()
            raise
        except Exception as error:  # user errors and bugs alike reach the front end
            if self._build_task is me:
                (fail or self._fail)(error)
            return None
        finally:
            if self._build_task is me:
                self._build_task = None
                self.events.busy.emit(False)
        if self._build_task is not None:  # a newer build started meanwhile
            return None
        self.deliver(oracle)
        return oracle

    def deliver(self, oracle: OracleResult) -> None:
        """Make ``oracle`` the current one (a build's, or one with a policy attached)."""
        if self.environment is None:
            raise ExplaincheckError("open a model first")
        self.oracle = oracle
        self.error = None
        self.selection.rebase(oracle)  # the same state where it still exists, else the initial
        self.events.oracle.emit(oracle, self.environment)
        self.selection.announce()  # every view holds the new oracle now: go to the state

    def cancel(self) -> None:
        """Stop a running build (the oracle's child process is killed)."""
        task = self._build_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    def _fail(self, error: BaseException) -> None:
        self.error = error
        self.events.failed.emit(error)


def _one_line(error: BaseException) -> str:
    """An error as the one line a refused property shows (its first line; a bug's type too)."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text if isinstance(error, ExplaincheckError) else f"{type(error).__name__}: {text}"


def _chosen(environment: Environment, choices: ModelChoices) -> tuple[str, str, str]:
    """The constants and goal/unsafe labels ``choices`` give on top of ``environment``'s. A bad
    constant is the build's error to report, so it is kept as typed here."""
    constants = environment.constants
    if choices.constants and choices.strict:
        constants = choices.constants
    elif choices.constants:
        try:
            values = parse_constants(constants)
            values.update(parse_constants(choices.constants))
            constants = format_constants(values)
        except ExplaincheckError:
            constants = ",".join(c for c in (constants, choices.constants) if c)
    goal = choices.goal_label or environment.goal_label
    unsafe = choices.unsafe_label or environment.unsafe_label
    return constants, goal, unsafe

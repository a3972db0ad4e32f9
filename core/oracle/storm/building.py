"""Parse and build a PRISM MDP with stormpy, turning Storm's exceptions into one-line errors.

Runs inside the oracle's child process (``isolation.py``), so a Storm crash or a state space that
eats all memory never takes the caller down.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from explaincheck.core.errors import ModelError, ModelTooLargeError
from explaincheck.core.oracle.constants_text import constant_parts
from explaincheck.core.oracle.storm import build_budget, wellformed
from explaincheck.core.oracle.storm.targets import Target, label_expressions, target
from explaincheck.core.oracle.storm.types import PrismProgram, Property, SparseModel
from explaincheck.core.oracle.types import OracleRequest

# Above this many states a rounding false alarm is not re-checked by a second, Rational build.
RATIONAL_RECHECK_UP_TO = 100_000
_PARSE_POSITION = re.compile(r"[Pp]arsing error at (\d+):(\d+):\s*(.*)")


@dataclass
class ParsedModel:
    """A parsed, constant-instantiated PRISM program and its two properties."""

    program: PrismProgram
    properties: list[Property]  # [Pmax F goal, Pmin F unsafe] (the second only with unsafe)
    has_unsafe: bool
    labels: tuple[str, ...]
    text: str = ""  # the file's text, to place Storm's exploration errors at a line
    notes: list[str] = field(default_factory=list)  # said with the oracle's warnings
    # goal, then unsafe if any, then the stay set of a [φ U ψ] property where φ is an expression
    targets: list[Target] = field(default_factory=list)
    # built without Storm's checks and the rows' sums left to the reader (``build``'s
    # ``rows_read_later``): whoever reads the matrix checks them (``wellformed.check_sums``)
    unchecked_rows: bool = False

    def formula(self, role: int) -> str:
        """The state formula of the goal (0) or the unsafe set (1) for a property text."""
        return self.targets[role].formula


# A PRISM model is text of a few KB (generated ones a few MB); anything far larger is refused
# before it is read, and a binary file is recognised from its first bytes.
MAX_MODEL_BYTES = 64 * 1024 * 1024
_PREFIX_BYTES = 4096


def _check_file(path: Path) -> str:
    """The file's text, after clear refusals of a missing, empty, binary or huge file; the
    refusals read at most a prefix, never a whole multi-GB file."""
    if not path.exists():
        raise ModelError(f"{path}: no such file")
    if path.is_dir():
        raise ModelError(f"{path}: is a folder, not a PRISM file")
    try:
        with path.open("rb") as handle:
            prefix = handle.read(_PREFIX_BYTES)
            if b"\0" in prefix:
                raise ModelError(f"{path}: this is a binary file, not a PRISM model")
            size = path.stat().st_size
            if size > MAX_MODEL_BYTES:
                raise ModelError(
                    f"{path}: {size / 2**20:,.0f} MB is too large for a PRISM model"
                    f" (at most {MAX_MODEL_BYTES // 2**20} MB)"
                )
            data = prefix + handle.read(MAX_MODEL_BYTES + 1 - len(prefix))
    except OSError as error:
        raise ModelError(f"{path}: cannot read ({error.strerror})") from None
    if not data.strip():
        raise ModelError(f"{path}: the file is empty")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ModelError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None


def _storm_message(error: Exception) -> str:
    text = str(error).strip()
    text = re.sub(r"^\w+Exception:\s*", "", text)
    return text


def quiet_storm() -> None:
    """Storm logs its own copy of every error on the terminal; ours are clearer, so mute it."""
    from stormpy.developer import LogLevel, set_log_level

    set_log_level(LogLevel.OFF)


def parse_program(path: Path) -> PrismProgram:
    """Parse a PRISM file; syntax errors become a ``ModelError`` with line and column."""
    return parse_program_text(path)[0]


def parse_program_text(path: Path) -> tuple[PrismProgram, str]:
    """The parsed program and the file's text (see ``parse_program``)."""
    import stormpy

    quiet_storm()
    text = _check_file(path)
    try:
        program = stormpy.parse_prism_program(str(path))
    except Exception as error:  # Storm raises RuntimeError/StormError with its own text
        message = _storm_message(error)
        match = _PARSE_POSITION.search(message)
        if match:
            line, column = int(match.group(1)), int(match.group(2))
            detail = match.group(3).split("\n")[0].strip()
            detail = re.sub(r",?\s*here:?$", "", detail) or "syntax error"
            raise ModelError(
                f"{path}:{line}:{column}: syntax error: {detail}", line=line, column=column
            ) from None
        first = message.splitlines()[0] if message else type(error).__name__
        placed = _STORM_ERROR_IN.match(first)
        if placed:  # Storm names the file again: "Error in FILE, line N: what" -> "FILE:N: what"
            line = int(placed.group(1))
            raise ModelError(f"{path}:{line}: {placed.group(2)}", line=line) from None
        kind = _STORM_MODEL_KIND.search(first)
        if kind:  # Storm's hint names a flag of its own CLI, which explaincheck has not
            raise ModelError(f"{path}: {_unsupported(kind.group(1))}") from None
        raise ModelError(f"{path}: {first}") from None
    return program, text


_STORM_MODEL_KIND = re.compile(r"The input model is an? (\w+)")
_STORM_ERROR_IN = re.compile(r"Error in .*?, line (\d+): (.+)")


def _unsupported(model_type: str) -> str:
    return (
        f"model type {model_type} is not supported (explaincheck needs an MDP; "
        "a DTMC is accepted as an MDP with one action per state)"
    )


def parse(request: OracleRequest) -> ParsedModel:
    """Parse the file, check labels and constants, and instantiate constants."""
    import stormpy

    path = Path(request.model_path)
    program, text = parse_program_text(path)

    model_type = str(program.model_type).split(".")[-1]
    if model_type not in ("MDP", "DTMC"):
        raise ModelError(f"{path}: {_unsupported(model_type)}")

    labels = tuple(label.name for label in program.labels)
    program = _instantiate(program, request.constants, path)
    goal = target(request.goal_label, "goal", program, labels, path)
    if goal is None:
        raise ModelError(
            f"{path}: the goal label {request.goal_label!r} is not defined; labels are: "
            f"{', '.join(labels) or 'none'} (use --goal to name another, or a PRISM expression)"
        )
    unsafe = target(request.unsafe_label, "unsafe", program, labels, path)
    has_unsafe = unsafe is not None
    property_text = f"Pmax=? [F {goal.formula}]"
    if unsafe is not None:
        property_text += f"; Pmin=? [F {unsafe.formula}]"
    try:
        properties = stormpy.parse_properties(property_text, program)
    except Exception as error:
        raise ModelError(f"{path}: cannot state the properties: {_storm_message(error)}") from None
    wellformed.check_constant_sums(program, path, text)
    chosen = [goal] if unsafe is None else [goal, unsafe]
    stay = request.property.stay if request.property is not None else None
    if stay is not None:  # φ of [φ U ψ]: an expression's states labelled as a goal's are
        found = target(stay, "stay", program, labels, path)
        if found is not None and found.expression is not None:
            chosen.append(found)
    return ParsedModel(program, properties, has_unsafe, labels, text, targets=chosen)


def _instantiate(program: PrismProgram, constants: str, path: Path) -> PrismProgram:
    import stormpy

    given = _constant_names(constants)
    declared = {c.name for c in program.constants}
    unknown = sorted(given - declared)
    if unknown:
        raise ModelError(
            f"{path}: unknown constant {', '.join(unknown)} in --const; the model declares: "
            f"{', '.join(sorted(declared)) or 'none'}"
        )
    fixed = sorted(c.name for c in program.constants if c.defined and c.name in given)
    if fixed:
        raise ModelError(
            f"{path}: constant {', '.join(fixed)} has a value in the model and cannot be set with "
            "--const (declare it without a value, e.g. 'const double p;', to make it a setting)"
        )
    missing = [c.name for c in program.constants if not c.defined and c.name not in given]
    if missing:
        example = ",".join(f"{name}=..." for name in missing)
        raise ModelError(
            f"{path}: undefined constant {', '.join(missing)}; give a value with --const {example}"
        )
    if not constants.strip():
        return program
    try:
        instantiated, _ = stormpy.instantiate_constants(program, constants, [])
    except Exception as error:
        raise ModelError(
            f"{path}: bad constant definition {constants!r}: {_storm_message(error)}"
        ) from None
    return instantiated


def _constant_names(constants: str) -> set[str]:
    try:
        return {name for name, _ in constant_parts(constants)}
    except ValueError as error:
        raise ModelError(str(error)) from None


def build(
    parsed: ParsedModel,
    *,
    exact: bool,
    state_limit: int,
    path: str,
    watch: Callable[[int], None] | None = None,
    rows_read_later: bool = False,
) -> SparseModel:
    """Build the sparse model (labels, valuations and choice labels kept) with Storm's
    exploration checks on, so an ill-formed command is refused (``wellformed``).

    ``watch(bytes)`` is told the resident memory this build must stay under to be within
    ``state_limit`` (0: no bound; ``NOT_CALIBRATED``: its default), so a watchdog can stop a
    model beyond it while it builds. ``rows_read_later``: a caller that reads the whole matrix
    anyway checks a rounding model's row sums itself (``ParsedModel.unchecked_rows``) instead
    of a second export of the matrix here."""
    if watch is not None:  # calibrated on the float builder; Rational numbers need more
        uncalibrated = build_budget.NOT_CALIBRATED
        watch(uncalibrated if exact else build_budget.resident_bound(parsed.program, state_limit))
    try:
        model = _build(parsed, exact=exact, checks=True, path=path, state_limit=state_limit)
    except _Rounding:
        # The float builder's sum check compares doubles exactly, so a sum that is one up to
        # rounding stops it. Constant sums were already checked in fractions (``parse``), so the
        # float model is built again without the checks and its rows' sums are checked here
        # (within ``wellformed.ROW_ROUNDING``). What the checks would still decide is whether
        # an update leaves its variable's range: where interval arithmetic over the updates
        # shows none can (``wellformed.updates_stay_in_range``), nothing is left to decide;
        # elsewhere the rational builder's full re-check, a second build of the whole model in
        # Rational numbers (0.15 s at 10^4 states, 5 minutes and the watchdog at 10^6), runs
        # for models small enough to afford it.
        model = _build(parsed, exact=exact, checks=False, path=path, state_limit=state_limit)
        if model.nr_states > state_limit:
            raise ModelTooLargeError(_too_many(path, state_limit)) from None
        if rows_read_later:
            parsed.unchecked_rows = True
        else:
            wellformed.check_row_sums(model, path)
        in_range = wellformed.updates_stay_in_range(parsed.program)
        if model.nr_states <= RATIONAL_RECHECK_UP_TO and not in_range:
            # what is left for Storm's checks to decide: whether an update leaves its range
            if watch is not None:
                watch(build_budget.NOT_CALIBRATED)
            _build(parsed, exact=True, checks=True, path=path, state_limit=state_limit)
        elif model.nr_states > RATIONAL_RECHECK_UP_TO:
            parsed.notes.append(
                "the model's float probabilities sum to one only up to rounding, and at "
                f"{model.nr_states:,} states Storm's exploration checks were not repeated in "
                "exact arithmetic: each choice's probabilities were checked to sum to one within "
                f"{wellformed.ROW_ROUNDING:g}, "
                + (
                    "and every update was shown to keep its variable within its range"
                    if in_range
                    else "but an update outside a variable's range would not be refused"
                )
            )
    if model.nr_states > state_limit:
        raise ModelTooLargeError(_too_many(path, state_limit))
    label_expressions(model, parsed.targets)
    return model


def _too_many(path: str, state_limit: int) -> str:
    # Storm stopped exploring at state_limit + 1 states (``_build``): the true count is unknown
    return (
        f"{path}: the model is too large: it has more than the limit of {state_limit:,} states"
        " (raise it with --state-limit of oracle or run or in the GUI's Settings, or use"
        " smaller constants)"
    )


class _Rounding(Exception):
    """The float build's sum check failed only by rounding."""


def _build(
    parsed: ParsedModel, *, exact: bool, checks: bool, path: str, state_limit: int
) -> SparseModel:
    """Storm's explicit float builder told to stop exploring past ``state_limit + 1`` states
    (``ExplicitModelBuilderOptions.exploration_state_limit``): a model beyond the limit comes
    back with exactly that many states, after exploring no more of it than the limit allows
    (issue 34.20: the refusal had waited for the whole build, or for the memory watchdog)."""
    import stormpy
    from stormpy import developer

    # expressions' parts labelled by Storm, no state made terminal (``Target.keep``)
    kept = [each.keep for each in parsed.targets if each.keep is not None]
    options = stormpy.BuilderOptions(kept)
    # what ``build_full`` keeps, except the choice origins (the commands behind each choice):
    # the oracle names a choice by its labels, and the origins cost memory at every size
    options.set_build_all_labels()
    options.set_build_state_valuations()
    options.set_build_choice_labels()
    options.set_build_all_reward_models()
    options.set_exploration_checks(checks)
    try:
        if exact:
            # uncapped: stormpy 2.0's Rational builder factory cannot be called (its action-mask
            # default has no Python type); every caller builds in floats first, capped, so a
            # Rational build only ever follows a float build within the limit
            return stormpy.build_model[stormpy.Rational](parsed.program, options=options)
        if not parsed.program.undefined_constants_are_graph_preserving:
            return stormpy.build_model(parsed.program, options=options)  # Storm's own refusal
        capped = developer.ExplicitModelBuilderOptions[float]()
        capped.exploration_state_limit = state_limit + 1
        description = developer.SymbolicModelDescription(parsed.program)
        builder = developer.make_explicit_model_builder[float](description, options, None, capped)
        return builder.build()
    except MemoryError:
        raise ModelTooLargeError(
            f"{path}: the model is too large: building it ran out of memory"
        ) from None
    except Exception as error:
        message = _storm_message(error).splitlines()[0]
        if "bad_alloc" in message:  # Storm's C++ allocation failure (e.g. the child's memory limit)
            raise ModelTooLargeError(
                f"{path}: the model is too large: building it ran out of memory "
                "(use smaller constants)"
            ) from None
        if not exact and wellformed.is_rounding(message):
            raise _Rounding from None
        refusal = wellformed.explain(message, parsed.program, Path(path), parsed.text)
        if refusal is not None:
            raise refusal from None
        raise ModelError(f"{path}: cannot build the model: {message}") from None

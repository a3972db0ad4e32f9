"""Words for any PRISM model without an ``environment.toml``, and saving wording as a folder.

A user's model has no prose, so the generic wording shows what the model itself says: the
variables with their ranges (and the file's comments on them), the value of every constant the
words mention, the model's formulas by name (stated once), the labels with their definitions, a
guard that every action shares (stated once) and each action as the PRISM commands it stands
for (guard -> probability : updates), in the file's own words (``prism_text``). That is enough
for a careful human to answer any query from the words alone. ``save_wording`` turns an
environment's words into a new environment folder (TOML only, data, no code) that
``load_environment`` reads back unchanged.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from explaincheck.core.atomic_files import temporary_beside, write_text_atomically
from explaincheck.core.environments import toml_writer
from explaincheck.core.environments.loader import (
    MODEL_NAME,
    TOML_NAME,
    Constant,
    EnvironmentFolderError,
    TemplateDescriber,
    constant_text,
    is_builtin_folder,
    parse_constants,
)
from explaincheck.core.environments.prism_text import (
    SourceText,
    evaluate,
    identifiers,
    read_source,
)
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.program import ProgramDescription, describe_program
from explaincheck.core.oracle.property import (
    PROPS_SUFFIXES,
    Property,
    PropertyError,
    parse_property,
    read_props_file,
)

NEUTRAL_GOAL = "reach a state labelled {goal}"
NEUTRAL_AVOID = ", and avoid states labelled {unsafe}"
MAX_MEANING = 1200  # characters of PRISM commands shown per action


def _describe(model_path: Path) -> ProgramDescription:
    """What the model declares, read by Storm in the oracle's isolated child (errors with line
    and column, as the oracle reports them)."""
    return describe_program(model_path)


def _commands_by_action(
    program: ProgramDescription, source: SourceText, shared_guard: str | None
) -> dict[str, list[str]]:
    """Action name -> its PRISM commands in the file's own words (formula names kept), without
    the ``[name]`` prefix and without a guard that every action shares (stated once in the
    task); Storm's text where the file's text was not found."""
    found: dict[str, list[str]] = {}
    for action in program.actions:
        written = source.commands_of(action)
        if len(written) != len(program.commands_of(action)):
            found[action] = [c.text for c in program.commands_of(action)]
        elif shared_guard is not None:
            found[action] = [c.updates for c in written]
        else:
            found[action] = [f"{c.guard} -> {c.updates}" for c in written]
    return found


def _shared_guard(program: ProgramDescription, source: SourceText) -> str | None:
    """The guard of every labelled command, when there are several and all are the same text."""
    written = [c for c in source.commands if c.action]
    if len(written) < 2 or len(written) != sum(1 for c in program.commands if c.action):
        return None
    guards = {c.guard for c in written}
    return guards.pop() if len(guards) == 1 else None


def _meaning(commands: list[str], shared_guard: str | None) -> str:
    kind = "update(s)" if shared_guard is not None else "command(s)"
    text = f"PRISM {kind}: " + " ; ".join(commands)
    if len(text) > MAX_MEANING:
        text = text[: MAX_MEANING - 1].rstrip() + "…"
    return text


def _goal_text(goal_label: str, unsafe_label: str, labels: dict[str, str]) -> str:
    """The task sentence; unsafe states are mentioned only when the model labels any."""
    text = NEUTRAL_GOAL.format(goal=goal_label)
    if unsafe_label in labels:
        text += NEUTRAL_AVOID.format(unsafe=unsafe_label)
    return text


def generic_state_template(variables: list[str]) -> str:
    """``"x = {x}, y = {y} (labels: {labels})"`` for the given variable names."""
    parts = ", ".join(f"{name} = {{{name}}}" for name in variables)
    return f"{parts} (labels here: {{labels}})"


def constant_values(
    program: ProgramDescription, given: dict[str, Constant], mentioned: set[str]
) -> dict[str, str]:
    """Name -> value text of every constant the wording mentions (in a label, formula, guard,
    update or variable range): the ``--const`` value, else the file's value, else its
    definition worked out from the others (``TARGET = N``), else the definition's text."""
    known: dict[str, Constant] = {}
    for constant in program.constants:
        if constant.name in given:
            known[constant.name] = given[constant.name]
        elif constant.default is not None:
            known[constant.name] = constant.default
    for constant in program.constants:  # definitions through other constants, in file order
        if constant.name not in known and constant.definition is not None:
            value = evaluate(constant.definition, known)
            if value is not None:
                known[constant.name] = value
    shown: dict[str, str] = {}
    for constant in program.constants:
        if constant.name not in mentioned:
            continue
        if constant.name in known:
            shown[constant.name] = constant_text(known[constant.name])
        elif constant.definition is not None:
            shown[constant.name] = constant.definition
    return shown


def generic_environment(
    model_path: str | Path,
    *,
    constants: str = "",
    goal_label: str = "goal",
    unsafe_label: str = "unsafe",
) -> Environment:
    """Generic words for a PRISM model, read from the model itself (and its text: formula names,
    comments on variables)."""
    path = Path(model_path)
    program = _describe(path)
    source = read_source(path)
    formulas = {
        name: body
        for name, body in source.formulas.items()
        if name in identifiers(*source.labels.values())
        or any(name in identifiers(c.guard, c.updates) for c in source.commands)
        or any(name in identifiers(other) for other in source.formulas.values())
    }
    labels = {
        label.name: _label_text(label.name, label.expression, source) for label in program.labels
    }
    shared = _shared_guard(program, source)
    commands = _commands_by_action(program, source, shared)
    values = parse_constants(constants)
    name = path.parent.name if path.stem == "model" and path.parent.name else path.stem
    ranges = [var.range_text for var in program.variables]
    mentioned = identifiers(
        *labels.values(),
        *formulas.values(),
        *(text for texts in commands.values() for text in texts),
        *ranges,
        shared or "",
    )
    const_values = constant_values(program, values, mentioned)

    var_text = (
        "; ".join(
            f"{var.name} ({var.range_text}"
            + (f": {source.comments[var.name]}" if var.name in source.comments else "")
            + ")"
            for var in program.variables
        )
        or "none"
    )
    label_text = "; ".join(f"{label} = {expr}" for label, expr in labels.items()) or "none"
    const_text = ", ".join(f"{k} = {v}" for k, v in const_values.items())
    formula_text = "; ".join(f"{k} = {v}" for k, v in formulas.items())
    task = (
        f"This is a Markov decision process (MDP) given as the PRISM model '{name}'. A state "
        f"assigns a value to each variable: {var_text}."
        + (f" Constants: {const_text}." if const_text else "")
        + (f" Formulas (names used below): {formula_text}." if formula_text else "")
        + f" Labels, with the condition under which a state carries them: {label_text}."
        + (f" Every action is available only where {shared} holds." if shared else "")
        + " In each state you choose one of the available actions; what happens next is random,"
        " as given by the action's PRISM "
        + (
            "update(s) listed with the actions (probability : updates, where x' is the value of"
            " x after the step)."
            if shared
            else "command(s) listed with the actions (guard -> probability : updates, where x'"
            " is the value of x after the step; a command applies only where its guard holds)."
        )
        + " Your task: "
        + _goal_text(goal_label, unsafe_label, labels)
        + "."
    )
    template = generic_state_template([var.name for var in program.variables])
    return Environment(
        id=None,
        title=name,
        description=(
            f"The PRISM model {path.name} with generic wording: {len(program.variables)} "
            f"variables, {len(commands)} actions, labels {', '.join(labels) or 'none'}."
        ),
        model_path=str(path),
        constants=constants,
        goal_label=goal_label,
        unsafe_label=unsafe_label,
        task=task,
        action_meanings={action: _meaning(texts, shared) for action, texts in commands.items()},
        describe=TemplateDescriber(template, values),
        folder=None,
        rewards={name: reward_text(name, items) for name, items in source.rewards.items()},
        properties=beside_properties(path),
    )


def reward_text(name: str, items: str) -> str:
    """How a rewards block adds up, in the file's words (the prompt of a reward property)."""
    shown = f'"{name}"' if name else "(unnamed)"
    return (
        f"The model's rewards block {shown} is: {items} A state item 'guard : r' adds r at every"
        " step taken from a state where the guard holds; an action item '[a] guard : r' adds r"
        " whenever action a is taken where the guard holds."
    )


def beside_properties(model: Path) -> dict[str, Property]:
    """The named properties of the property file beside a model (``model.props`` or
    ``.pctl``) that are of a supported form; a file that cannot be read gives none (``--property
    FILE`` names it, with its errors)."""
    found: dict[str, Property] = {}
    for suffix in PROPS_SUFFIXES:
        beside = model.with_suffix(suffix)
        if not beside.is_file():
            continue
        try:
            props = read_props_file(beside)
        except PropertyError:
            continue
        known = {k: v for k, v in props.constants.items() if v is not None}
        for entry in props.entries:
            if not entry.name or entry.name in found:
                continue
            try:
                found[entry.name] = parse_property(entry.text, name=entry.name, constants=known)
            except PropertyError:
                continue
    return found


def _label_text(name: str, expression: str, source: SourceText) -> str:
    """A label's condition in the file's words (formula names kept), else Storm's text."""
    return source.labels.get(name, expression)


def _escape(text: str) -> str:
    """Saved text is read back as a template: literal braces must be doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def wording_data(env: Environment, *, state_template: str | None = None) -> dict:
    """The ``environment.toml`` content for ``env`` (the state template must be data)."""
    template = state_template or getattr(env.describe, "template", None)
    if not template:
        variables = list(_describe(Path(env.model_path)).variable_names)
        template = generic_state_template(variables)
    return {
        "title": env.title,
        "description": env.description,
        "goal_label": env.goal_label,
        "unsafe_label": env.unsafe_label,
        "task": _escape(env.task),
        "state": template,
        "constants": parse_constants(env.constants),
        "actions": {action: _escape(text) for action, text in env.action_meanings.items()},
    }


def save_wording(
    env: Environment,
    folder: str | Path,
    *,
    state_template: str | None = None,
    overwrite: bool = False,
) -> Path:
    """Write ``env``'s words as a new environment folder (``model.prism`` + ``environment.toml``).

    Only data is written; a ``describe.py`` is never created or copied. Returns the TOML path.
    """
    folder = Path(folder)
    if is_builtin_folder(folder):
        raise EnvironmentFolderError(f"{folder}: built-in environments cannot be overwritten")
    target = folder / TOML_NAME
    if target.exists() and not overwrite:
        raise EnvironmentFolderError(f"{target}: already exists (choose another folder)")
    data = wording_data(env, state_template=state_template)
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / MODEL_NAME
    source = Path(env.model_path)
    if not (model.exists() and model.resolve() == source.resolve()):
        with temporary_beside(model) as temporary:
            shutil.copyfile(source, temporary)
    write_text_atomically(target, toml_writer.dumps(data))
    return target

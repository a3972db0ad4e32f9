"""Load an environment folder (``model.prism`` + ``environment.toml`` + optional ``describe.py``).

The folder is data: the TOML holds every word an LLM reads (task, state template, action
meanings) and the default constants. Text may name constants in braces (``{N}``), filled in when
the folder is loaded so the words always match the model that is checked. ``describe.py`` is
Python and therefore runs only for the built-in folders or when the caller passes
``trusted=True`` (docs/adding-an-environment.md, section 4); an untrusted folder falls back to
its ``state`` template. A folder may be untrusted, so templates are bounded and plain.
"""

from __future__ import annotations

import inspect
import re
import string
import tomllib
import types
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from explaincheck.core.environments.folder_layout import DESCRIBE_NAME, MODEL_NAME, TOML_NAME
from explaincheck.core.environments.types import Environment, StateDescriber
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.constants_text import constant_parts, literal
from explaincheck.core.oracle.constants_text import literal_text as constant_text
from explaincheck.core.oracle.property import Property, PropertyError, parse_property
from explaincheck.core.oracle.types import StateFacts
from explaincheck.core.paths import environments_dir

# Labels Storm adds by itself; they say nothing about the task.
HIDDEN_LABELS = frozenset({"init", "deadlock"})

Constant = int | float | bool


class EnvironmentFolderError(ExplaincheckError):
    """An environment folder is missing a file or a field, or its wording is malformed."""


def parse_constants(text: str) -> dict[str, Constant]:
    """``"N=4,p=0.5"`` -> ``{"N": 4, "p": 0.5}`` (order kept; values typed like PRISM's)."""
    try:
        parts = constant_parts(text)
    except ValueError as error:
        raise EnvironmentFolderError(str(error)) from None
    return {name: _typed(raw) for name, raw in parts}


def format_constants(values: Mapping[str, Constant]) -> str:
    """The inverse of ``parse_constants``: ``{"N": 4}`` -> ``"N=4"``."""
    return ",".join(f"{name}={constant_text(value)}" for name, value in values.items())


def _typed(raw: str) -> Constant:
    try:
        return literal(raw)
    except ValueError:
        raise EnvironmentFolderError(
            f"bad constant value {raw!r}: expected a number or true/false"
        ) from None


# Bounds on what a (possibly untrusted) environment folder can make explaincheck render: a
# format spec such as ``{A:x>20000000}`` would otherwise turn a 3 KB file into 80 MB prompts.
MAX_FIELD_WIDTH = 200  # largest width or precision in a template's format spec
MAX_RENDERED = 20_000  # characters one filled template may have
MAX_TOML_BYTES = 1_000_000  # an environment.toml is a few KB of prose

_FORMATTER = string.Formatter()
_SPEC_NUMBER = re.compile(r"\d+")


def check_template(template: str, *, where: str) -> None:
    """Refuse what a template may not do: attribute or index access (``{A.__class__}``,
    ``{A[0]}``), positional or nested fields, and huge widths in a format spec."""
    try:
        parsed = list(_FORMATTER.parse(template))
    except ValueError as error:
        raise EnvironmentFolderError(f"{where}: malformed template ({error})") from None
    for _, name, spec, _ in parsed:
        if name is None:
            continue
        if not name.isidentifier():
            raise EnvironmentFolderError(
                f"{where}: {{{name}}} is not allowed: a placeholder is a plain constant or"
                " variable name (no '.', '[' or empty braces)"
            )
        if spec and ("{" in spec or "}" in spec):
            raise EnvironmentFolderError(f"{where}: {{{name}:{spec}}} nests a placeholder")
        if spec and any(int(n) > MAX_FIELD_WIDTH for n in _SPEC_NUMBER.findall(spec)):
            raise EnvironmentFolderError(
                f"{where}: {{{name}:{spec}}} asks for more than {MAX_FIELD_WIDTH} characters"
            )


def fill(template: str, values: Mapping[str, Any], *, where: str) -> str:
    """``template.format(**values)`` with a one-line error naming an unknown placeholder; the
    template is checked first and the result bounded (``MAX_RENDERED``)."""
    check_template(template, where=where)
    try:
        text = template.format_map(dict(values))
    except KeyError as error:
        known = ", ".join(sorted(values)) or "none"
        raise EnvironmentFolderError(
            f"{where}: unknown placeholder {{{error.args[0]}}}; known names: {known}"
        ) from None
    except (ValueError, IndexError, AttributeError, TypeError, OverflowError) as error:
        raise EnvironmentFolderError(f"{where}: malformed template ({error})") from None
    if len(text) > MAX_RENDERED:
        raise EnvironmentFolderError(
            f"{where}: the filled-in text has {len(text):,} characters (at most {MAX_RENDERED:,})"
        )
    return text


@dataclass(frozen=True)
class TemplateDescriber:
    """A state description from a format string over the state variables and the constants.

    Kept as data (``template``) rather than a closure so the wording can be saved back to TOML.
    """

    template: str
    constants: Mapping[str, Constant]

    def __call__(self, state: StateFacts) -> str:
        values: dict[str, Any] = dict(self.constants)
        values.update(state.valuation)
        values["labels"] = ", ".join(visible_labels(state)) or "none"
        return fill(self.template, values, where=f"state {state.id}")


def visible_labels(state: StateFacts) -> tuple[str, ...]:
    """The state's labels without Storm's own ``init``/``deadlock``."""
    return tuple(label for label in state.labels if label not in HIDDEN_LABELS)


def is_builtin_folder(folder: Path) -> bool:
    """Whether ``folder`` is one of the shipped environment folders (whose code is trusted)."""
    try:
        return folder.resolve().parent == environments_dir().resolve()
    except OSError:
        return False


def read_toml(folder: Path) -> dict[str, Any]:
    """The parsed TOML; anything that is not a small UTF-8 TOML file is one clear error."""
    path = folder / TOML_NAME
    if not path.is_file():
        raise EnvironmentFolderError(f"{folder}: no {TOML_NAME} in this folder")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_TOML_BYTES + 1)
    except OSError as error:
        raise EnvironmentFolderError(f"{path}: cannot read ({error.strerror})") from None
    if len(data) > MAX_TOML_BYTES:
        raise EnvironmentFolderError(
            f"{path}: larger than {MAX_TOML_BYTES:,} bytes, too large for an environment file"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise EnvironmentFolderError(
            f"{path}: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise EnvironmentFolderError(f"{path}: {error}") from None
    except RecursionError:
        raise EnvironmentFolderError(f"{path}: nested too deeply to be read") from None


def model_in_folder(folder: Path, value: Any, where: str) -> Path:
    """The folder's model: a ``.prism`` file inside the folder (``model = "/etc/passwd"`` or
    ``"../other.prism"`` is refused; a model elsewhere is named on the command line instead)."""
    if not isinstance(value, str) or not value.strip():
        raise EnvironmentFolderError(f"{where}: 'model' must name a .prism file in the folder")
    path = folder / value
    if Path(value).is_absolute() or Path(value).suffix != ".prism":
        raise EnvironmentFolderError(
            f"{where}: model = {value!r} is not allowed: it must be a .prism file inside the"
            " folder (name other models on the command line)"
        )
    try:
        inside = path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        inside = False
    if not inside:
        raise EnvironmentFolderError(
            f"{where}: model = {value!r} points outside the folder; it must be a .prism file"
            " inside it (name other models on the command line)"
        )
    return path


def load_environment(
    folder: str | Path, *, constants: str | None = None, trusted: bool = False
) -> Environment:
    """The ``Environment`` of one folder; ``constants`` ("N=6") overrides the defaults by name."""
    folder = Path(folder)
    data = read_toml(folder)
    where = str(folder / TOML_NAME)
    model_path = model_in_folder(folder, data.get("model", MODEL_NAME), where)
    if not model_path.is_file():
        raise EnvironmentFolderError(f"{folder}: the model file {model_path.name} is missing")

    values = _default_constants(data.get("constants", {}), where)
    if constants:
        values.update(parse_constants(constants))

    actions = data.get("actions", {})
    variables = data.get("variables", {})
    for name, table in (("actions", actions), ("variables", variables)):
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise EnvironmentFolderError(f"{where}: [{name}] must map names to text")
    task = _required_text(data, "task", where)

    builtin = is_builtin_folder(folder)
    describe = _describer(folder, data, values, trusted=trusted or builtin, where=where)
    rewards = data.get("rewards", {})
    if not isinstance(rewards, dict) or not all(isinstance(v, str) for v in rewards.values()):
        raise EnvironmentFolderError(f"{where}: [rewards] must map rewards block names to text")
    rewards = {
        name: fill(text, values, where=f"{where}: rewards {name}").strip()
        for name, text in rewards.items()
    }
    return Environment(
        id=str(data.get("id", folder.name)),
        title=_required_text(data, "title", where),
        description=str(data.get("description", "")).strip(),
        model_path=str(model_path),
        constants=format_constants(values),
        goal_label=str(data.get("goal_label", "goal")),
        unsafe_label=str(data.get("unsafe_label", "unsafe")),
        task=fill(task, values, where=f"{where}: task").strip(),
        action_meanings={
            name: fill(text, values, where=f"{where}: action {name}").strip()
            for name, text in actions.items()
        },
        describe=describe,
        folder=str(folder),
        variables=dict(variables),
        properties=_properties(data.get("properties", []), values, rewards, where),
        rewards=rewards,
    )


def _properties(
    raw: Any, values: Mapping[str, Constant], rewards: Mapping[str, str], where: str
) -> dict[str, Property]:
    """``[[properties]]``: each a ``name``, its PRISM ``property`` and optional words
    (``target``: the target as a noun, ``unit``: what the reward counts); a wrong one is one
    line naming it."""
    if not isinstance(raw, list) or not all(isinstance(entry, dict) for entry in raw):
        raise EnvironmentFolderError(f"{where}: [[properties]] must be tables")
    found: dict[str, Property] = {}
    for index, entry in enumerate(raw, start=1):
        name = entry.get("name")
        text = entry.get("property")
        place = f"{where}: property {name or index}"
        if not isinstance(name, str) or not name.strip() or not isinstance(text, str):
            raise EnvironmentFolderError(f"{place}: needs a name and a property (text)")
        if name in found:
            raise EnvironmentFolderError(f"{place}: the name is used twice")
        words = {key: entry.get(key, "") for key in ("target", "unit")}
        if not all(isinstance(w, str) for w in words.values()):
            raise EnvironmentFolderError(f"{place}: target and unit are text")
        try:
            prop = parse_property(text, name=name, constants=values, where=place)
        except PropertyError as error:
            raise EnvironmentFolderError(str(error)) from None
        reward = prop.reward if prop.reward is not None else next(iter(rewards), "")
        found[name] = replace(
            prop,
            target_words=fill(words["target"], values, where=place).strip(),
            unit_words=fill(words["unit"], values, where=place).strip(),
            reward_words=rewards.get(reward, "") if prop.is_reward else "",
        )
    return found


def _default_constants(raw: Any, where: str) -> dict[str, Constant]:
    if isinstance(raw, str):
        return parse_constants(raw)
    if not isinstance(raw, dict):
        raise EnvironmentFolderError(f"{where}: [constants] must be a table of NAME = value")
    values: dict[str, Constant] = {}
    for name, value in raw.items():
        if not isinstance(value, int | float | bool):
            raise EnvironmentFolderError(f"{where}: constant {name} must be a number or true/false")
        values[name] = value
    return values


def _required_text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise EnvironmentFolderError(f"{where}: the field {key!r} is missing or empty")
    return value


def _describer(
    folder: Path,
    data: Mapping[str, Any],
    values: Mapping[str, Constant],
    *,
    trusted: bool,
    where: str,
) -> StateDescriber:
    code = folder / DESCRIBE_NAME
    if code.is_file() and trusted:
        return _import_describer(code, values)
    template = data.get("state")
    if isinstance(template, str) and template.strip():
        check_template(template, where=f"{where}: state")
        return TemplateDescriber(template.strip(), dict(values))
    if code.is_file():
        raise EnvironmentFolderError(
            f"{folder}: this folder words its states with {DESCRIBE_NAME}, which runs only for "
            "trusted folders, and has no 'state' template to fall back on"
        )
    raise EnvironmentFolderError(
        f"{where}: the field 'state' is missing (or add a {DESCRIBE_NAME})"
    )


def _import_describer(code: Path, values: Mapping[str, Constant]) -> StateDescriber:
    """Run ``describe.py`` (without writing bytecode into the data folder) and bind the
    constants if its ``describe`` takes them."""
    name = f"explaincheck_env_{code.parent.name}"
    module = types.ModuleType(name)
    module.__file__ = str(code)
    try:
        exec(compile(code.read_text(encoding="utf-8"), str(code), "exec"), module.__dict__)
    except SyntaxError as error:
        raise EnvironmentFolderError(f"{code}:{error.lineno}: {error.msg}") from None
    describe = getattr(module, "describe", None)
    if not callable(describe):
        raise EnvironmentFolderError(f"{code}: defines no describe(state) function")
    if len(inspect.signature(describe).parameters) >= 2:
        frozen = dict(values)
        return lambda state: describe(state, frozen)
    return describe

"""Campaign files: every ``explaincheck run`` option as a TOML key, so a campaign is one file
that can be kept with its results, shared and run again exactly.

Why the keys are the option names (``budget``, ``llm``, ``ollama-host``, ``max-cost``): one
vocabulary for the command line, the file and the GUI, read from the ``run`` parser itself, so a
new option is a new key without touching this module. Options given on the command line win
over the file (``track_given`` marks them while argparse parses); an unknown key or a value of
the wrong type is an error naming the key and its line.
"""

from __future__ import annotations

import argparse
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from explaincheck.core.errors import ExplaincheckError

GIVEN = "_given_options"  # the namespace attribute holding the dests given on the command line
LEFT_OUT = ("help", "config")  # options that are not campaign settings


class ConfigError(ExplaincheckError):
    """A campaign file that cannot be used (the message names file, line and key)."""


# -- which options were typed -----------------------------------------------------------------

_TRACKING: dict[type, type] = {}


def _tracking(cls: type) -> type:
    if cls not in _TRACKING:

        def __call__(self, parser, namespace, values, option_string=None):  # type: ignore
            setattr(namespace, GIVEN, {*getattr(namespace, GIVEN, set()), self.dest})
            return cls.__call__(self, parser, namespace, values, option_string)

        _TRACKING[cls] = type(f"Tracked{cls.__name__}", (cls,), {"__call__": __call__})
    return _TRACKING[cls]


def track_given(parser: argparse.ArgumentParser) -> None:
    """Make every option of ``parser`` record on the namespace that it was given."""
    for action in parser._actions:
        if action.option_strings and not isinstance(action, argparse._HelpAction):
            action.__class__ = _tracking(type(action))


def given(args: argparse.Namespace) -> set[str]:
    return set(getattr(args, GIVEN, set()))


# -- keys --------------------------------------------------------------------------------------


def option_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Key -> action: the long option's name without ``--`` (``ollama-host``)."""
    keys = {}
    for action in parser._actions:
        longs = [o for o in action.option_strings if o.startswith("--")]
        if not longs or action.dest in LEFT_OUT:
            continue
        keys[longs[0][2:]] = action
    return keys


def _line_of(text: str, key: str) -> int | None:
    pattern = re.compile(rf"^\s*(\"{re.escape(key)}\"|'{re.escape(key)}'|{re.escape(key)})\s*=")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def _where(path: Path, text: str, key: str) -> str:
    line = _line_of(text, key)
    return f"{path}, line {line}" if line else str(path)


def _convert(action: argparse.Action, value: Any, where: str, key: str) -> Any:
    """``value`` as the option would hold it, or a ``ConfigError``."""
    repeatable = isinstance(action, argparse._AppendAction)
    if isinstance(action, argparse._StoreTrueAction):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be true or false")
        return value
    items = value if repeatable and isinstance(value, list) else [value]
    if not repeatable and isinstance(value, list | dict):
        raise ConfigError(f"{where}: {key} takes one value, not a list")
    converted = []
    for item in items:
        if isinstance(item, dict | list):
            raise ConfigError(f"{where}: {key} must be a plain value")
        text = item if isinstance(item, str) else _plain(item)
        kind = action.type or str
        try:
            result = kind(text) if callable(kind) else text
        except (TypeError, ValueError, argparse.ArgumentTypeError) as error:
            shown = repr(item) if len(repr(item)) <= 80 else f"{repr(item)[:77]}..."
            raise ConfigError(f"{where}: {key} = {shown} is not valid ({error})") from None
        if action.choices is not None and result not in action.choices:
            choices = ", ".join(map(str, action.choices))
            raise ConfigError(f"{where}: {key} must be one of {choices} (got {item!r})")
        converted.append(result)
    return converted if repeatable else converted[0]


def _plain(item: Any) -> str:
    if isinstance(item, bool):
        return "true" if item else "false"
    return str(item)


MAX_CONFIG_BYTES = 1 << 20  # a campaign file is a few lines; a larger one is no campaign file


def load_config(path: str | Path, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """dest -> value of every key in the file, checked against the parser's options."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(f"campaign file {path} is over {MAX_CONFIG_BYTES >> 20} MB: not read")
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read campaign file {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"campaign file {path} is not UTF-8 text (byte {error.start}): save it as UTF-8"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: {error}") from None
    except RecursionError:
        raise ConfigError(f"{path}: arrays or tables nested too deeply to read") from None
    actions = option_actions(parser)
    values = {}
    for key, value in data.items():
        action = actions.get(key) or actions.get(key.replace("_", "-"))
        if action is None:
            raise ConfigError(
                f"{_where(path, text, key)}: unknown key {key!r} (valid: {', '.join(actions)})"
            )
        values[action.dest] = _convert(action, value, _where(path, text, key), key)
    return values


def apply_config(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Fill ``args`` from ``args.config`` where the command line did not give the option."""
    path = getattr(args, "config", None)
    if not path:
        return
    typed = given(args)
    for dest, value in load_config(path, parser).items():
        if dest not in typed:
            setattr(args, dest, value)


# -- writing -----------------------------------------------------------------------------------


def run_options(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """key -> value of every run option (as a campaign file would hold it), None left out."""
    options = {}
    for key, action in option_actions(parser).items():
        value = getattr(args, action.dest, None)
        if value is None or (isinstance(value, list) and not value):
            continue
        options[key] = list(value) if isinstance(value, list | tuple) else value
    return options


def _toml_value(item: Any) -> str:
    from explaincheck.core.environments.toml_writer import value

    if isinstance(item, list | tuple):
        return "[" + ", ".join(value(v) for v in item) + "]"
    return value(item)


def config_text(options: Mapping[str, Any], comment: str = "") -> str:
    """A campaign file holding ``options`` (key -> value), readable by ``run --config``."""
    from explaincheck.core.environments.toml_writer import key

    lines = [f"# {line}" for line in comment.splitlines()]
    lines += [f"{key(k)} = {_toml_value(v)}" for k, v in options.items() if v is not None]
    return "\n".join(lines) + "\n"

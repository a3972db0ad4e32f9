"""The credentials explaincheck sends (API keys) and their redaction from every text it stores or
prints.

Why one module: a server or proxy may echo the bearer token in its error body, and that body
becomes an execution's ``reason`` and ``error``, a log line and a terminal message. Every such
text passes ``redact`` (the store's ``storable_text``, ``safe_terminal``, the backends' error
descriptions), so a key can leak only if it is unknown here. A backend that sends a key from
another variable registers it (``register_variable``), one given otherwise its value
(``register_value``).
"""

from __future__ import annotations

import os
import urllib.parse

# Environment variables whose values are sent as credentials.
_VARIABLES: list[str] = ["OLLAMA_API_KEY", "OPENAI_API_KEY"]
_VALUES: dict[str, str] = {}  # value -> the name it is shown as
MIN_LENGTH = 4  # shorter values are not keys (and redacting them would mangle ordinary text)


def register_variable(name: str) -> None:
    """Treat the value of environment variable ``name`` as a secret (read when redacting, so a
    key set later is covered too)."""
    if name not in _VARIABLES:
        _VARIABLES.append(name)


def read_key(*names: str) -> str | None:
    """The first set value of the environment variables ``names``, each registered for
    redaction as it is read (whatever its name: ``OPENAI_API_KEY_GPU1_8000`` too), so no key
    the project sends can come back unredacted in a reply, an error or a log line."""
    for name in names:
        register_variable(name)
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def register_value(value: str, name: str = "secret") -> None:
    """Treat ``value`` (a key from a settings file, a URL) as a secret shown as ``name``."""
    if value and len(value) >= MIN_LENGTH:
        _VALUES[value] = name


def variables() -> tuple[str, ...]:
    return tuple(_VARIABLES)


def _secrets() -> list[tuple[str, str]]:
    found = dict(_VALUES)
    for name in _VARIABLES:
        value = os.environ.get(name, "").strip()
        if len(value) >= MIN_LENGTH:
            found[value] = name
    pairs = []
    for value, name in found.items():
        pairs.append((value, name))
        quoted = urllib.parse.quote(value, safe="")
        if quoted != value:
            pairs.append((quoted, name))
    return sorted(pairs, key=lambda pair: -len(pair[0]))  # longest first: no partial leftovers


def redact(text: str) -> str:
    """``text`` with every known secret replaced by ``[NAME redacted]``."""
    if not isinstance(text, str) or not text:
        return text
    for value, name in _secrets():
        if value in text:
            text = text.replace(value, f"[{name} redacted]")
    return text

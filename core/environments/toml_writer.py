"""A minimal TOML writer for saved wording (the standard library only reads TOML).

Wording is saved as data, never code (a shared folder must not run code), and its values are
only strings, numbers, booleans and one level of tables, so a few lines cover it. Round trips
through ``tomllib`` are tested.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def quote(text: str) -> str:
    """A TOML basic string. JSON's escapes are a subset of TOML's; DEL must be escaped too."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def key(name: str) -> str:
    return name if _BARE_KEY.match(name) else quote(name)


def value(item: Any) -> str:
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int | float):
        return repr(item)
    if isinstance(item, str):
        return quote(item)
    raise TypeError(f"cannot write {type(item).__name__} to TOML")


def dumps(data: Mapping[str, Any]) -> str:
    """Plain keys first, then one ``[table]`` per mapping value (tables may be empty)."""
    lines = [f"{key(k)} = {value(v)}" for k, v in data.items() if not isinstance(v, Mapping)]
    for name, table in data.items():
        if isinstance(table, Mapping):
            lines.append("")
            lines.append(f"[{key(name)}]")
            lines.extend(f"{key(k)} = {value(v)}" for k, v in table.items())
    return "\n".join(lines) + "\n"

"""The one reader of JSON and JSON Lines a user gives the project: question sets and their
manifests, answers, policy tables, Inspect log metadata, exports read back, stored JSON.

Why one reader with bounds: ``json.loads`` recurses once per nesting level (a line of 100,000
brackets is a ``RecursionError``), accepts ``NaN`` and ``Infinity`` (not JSON: jq and a
browser's ``JSON.parse`` refuse them, and a NaN δ silently sorts anywhere), turns ``1e999``
into an infinite float, and a file read whole may be gigabytes. Here every file is read with a
size limit, every line with a length limit, checked as UTF-8 (the byte and column named), parsed
with finite numbers only and at most ``MAX_DEPTH`` levels deep, and every field taken through
``Fields`` with its type checked. Each refusal is one ``JsonInputError`` line naming the file,
the line and the field, never a traceback.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from explaincheck.core.errors import ExplaincheckError

MAX_DEPTH = 64  # nesting levels of objects and arrays (a question's schema has 5)
MAX_LINE_BYTES = 16 << 20  # one JSON Lines record (a question is ~5 KB, an answer ~100 KB)
MAX_FILE_BYTES = 1 << 30  # one file read whole (the default set's questions are ~6 MB)
_BOM = b"\xef\xbb\xbf"


class JsonInputError(ExplaincheckError):
    """A JSON or JSON Lines file (or text) that cannot be used: one line naming where."""


def size_text(count: int) -> str:
    """A byte count for a message: ``16 MB``, ``1.5 GB``, ``900 bytes``."""
    for unit, shift in (("GB", 30), ("MB", 20), ("KB", 10)):
        if count >= 1 << shift:
            value = count / (1 << shift)
            return f"{value:.0f} {unit}" if value.is_integer() else f"{value:.1f} {unit}"
    return f"{count} bytes"


def read_limited(path: str | Path, *, limit: int = MAX_FILE_BYTES, what: str = "file") -> bytes:
    """The bytes of ``path``, refused when the file (or what a pipe gives) exceeds ``limit``."""
    path = Path(path)
    try:
        with path.open("rb") as stream:
            data = stream.read(limit + 1)
    except FileNotFoundError:
        raise JsonInputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise JsonInputError(f"{path}: a folder, not a {what}") from None
    except OSError as error:
        raise JsonInputError(f"{path}: cannot read it ({error.strerror or error})") from None
    if len(data) > limit:
        raise JsonInputError(
            f"{path}: larger than the {size_text(limit)} limit for a {what}; not read"
        )
    return data


def text_of(data: bytes, where: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped); a byte that is not UTF-8 is
    named with its column."""
    data = data.removeprefix(_BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        start = error.start
        line, column = data.count(b"\n", 0, start) + 1, start - data.rfind(b"\n", 0, start)
        at = f"line {line}, column {column}" if line > 1 else f"column {column}"
        raise JsonInputError(
            f"{where}: not UTF-8 text (byte 0x{data[start]:02x} at {at})"
        ) from None


def read_text(path: str | Path, *, limit: int = MAX_FILE_BYTES, what: str = "file") -> str:
    """A text file read with the limit and the UTF-8 check of the JSON files."""
    return text_of(read_limited(path, limit=limit, what=what), str(path))


class _NotFinite(ValueError):
    """``NaN``, ``Infinity`` or a number beyond a float (``1e999``) in a JSON text."""


@dataclass(frozen=True)
class _Marked:
    text: str  # the number as written


def _no_constant(name: str) -> NoReturn:
    raise _NotFinite(name)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def _marked_float(text: str) -> float | _Marked:
    value = float(text)
    return value if math.isfinite(value) else _Marked(text)


def _not_finite_at(text: str) -> str:
    """Where the first non-finite number of ``text`` is (``field 'delta'``, ``field
    'schema.items[2]'``) and what it is, for the message."""
    value = json.loads(text, parse_constant=_Marked, parse_float=_marked_float)
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _Marked):
            shown = item.text if len(item.text) <= 24 else f"{item.text[:20]}..."
            place = f"field {path!r}: " if path else ""
            return f"{place}{shown} is not a number JSON has (no NaN, Infinity or overflow)"
        if isinstance(item, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(item))))
    return "a number JSON has not"


def parse(text: str, where: str, *, document: bool = False, constants: bool = False) -> Any:
    """The JSON value of ``text``: finite numbers only (``constants`` lets ``NaN``/``Infinity``
    through, for files written before the project refused them), at most ``MAX_DEPTH`` deep.
    ``where`` is ``FILE`` of a whole file (``document``: a syntax error adds ``:LINE:COLUMN``)
    or ``FILE:LINE`` of one JSON Lines record (a syntax error adds ``:COLUMN``)."""
    try:
        if constants:
            value = json.loads(text)
        else:
            value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as error:
        at = f"{error.lineno}:{error.colno}" if document else str(error.colno)
        raise JsonInputError(f"{where}:{at}: not valid JSON ({error.msg.lower()})") from None
    except RecursionError:
        raise JsonInputError(f"{where}: nested too deeply (more than {MAX_DEPTH} levels)") from None
    except _NotFinite:
        raise JsonInputError(f"{where}: {_not_finite_at(text)}") from None
    except ValueError:  # the only other: an integer of more digits than Python converts
        digits = sys.get_int_max_str_digits()
        raise JsonInputError(
            f"{where}: not valid JSON (an integer of more than {digits:,} digits)"
        ) from None
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise JsonInputError(f"{where}: nested too deeply (more than {MAX_DEPTH} levels)")
    return value


def _depth(value: Any) -> int:
    """How many levels of objects and arrays ``value`` nests (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:  # deeper is refused anyway: no need to look further
                children = item.values() if isinstance(item, dict) else item
                stack.extend((child, level + 1) for child in children)
    return deepest


def read_json(path: str | Path, *, limit: int = MAX_FILE_BYTES, what: str = "JSON file") -> Any:
    """The JSON document in ``path``, read within ``limit`` bytes."""
    text = text_of(read_limited(path, limit=limit, what=what), str(path))
    return parse(text, str(path), document=True)


def lines_of(
    data: bytes, path: str | Path, *, constants: bool = False
) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of JSON Lines ``data`` read from ``path``
    (``constants`` as in ``parse``)."""
    for number, raw in enumerate(data.removeprefix(_BOM).split(b"\n"), 1):
        where = f"{path}:{number}"
        if len(raw) > MAX_LINE_BYTES:
            raise JsonInputError(
                f"{where}: a line of {size_text(len(raw))}, over the {size_text(MAX_LINE_BYTES)}"
                " limit for one record"
            )
        text = text_of(raw, where)
        if text.strip():
            yield number, parse(text, where, constants=constants)


def read_json_lines(
    path: str | Path,
    *,
    limit: int = MAX_FILE_BYTES,
    what: str = "JSON Lines file",
    constants: bool = False,
) -> list[tuple[int, Any]]:
    """(line number, value) of each non-blank line of the JSON Lines file ``path``."""
    return list(lines_of(read_limited(path, limit=limit, what=what), path, constants=constants))


def kind(value: Any) -> str:
    """What a JSON value is, in words (for "expected X, got Y")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


_WORDS = {str: "a string", int: "an integer", float: "a number", dict: "an object", list: "a list"}


class Fields:
    """The fields of one JSON object read from a user, each taken with its type checked; a
    mistake names ``where`` (file and line) and the field."""

    def __init__(self, data: Any, where: str, what: str = "a JSON object"):
        if not isinstance(data, Mapping):
            raise JsonInputError(f"{where}: expected {what}, got {kind(data)}")
        self.data = data
        self.where = where

    def refuse(self, name: str, problem: str) -> NoReturn:
        raise JsonInputError(f"{self.where}: field {name!r}: {problem}")

    def value(self, name: str, *, optional: bool = False) -> Any:
        """The field whatever its JSON type (the caller checks what it accepts)."""
        if name not in self.data:
            if optional:
                return None
            raise JsonInputError(f"{self.where}: missing field {name!r}")
        return self.data[name]

    def _typed(self, name: str, optional: bool, types: tuple[type, ...], words: str) -> Any:
        value = self.value(name, optional=optional)
        if value is None and optional:
            return None
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            self.refuse(name, f"expected {words}, got {kind(value)}")
        return value

    def text(self, name: str, *, optional: bool = False) -> Any:
        return self._typed(name, optional, (str,), "a string")

    def integer(self, name: str, *, optional: bool = False) -> Any:
        return self._typed(name, optional, (int,), "an integer")

    def number(self, name: str, *, optional: bool = False) -> Any:
        value = self._typed(name, optional, (int, float), "a number")
        return None if value is None else float(value)

    def boolean(self, name: str, *, optional: bool = False) -> Any:
        return self._typed(name, optional, (bool,), "true or false")

    def mapping(self, name: str, *, optional: bool = False) -> Any:
        return self._typed(name, optional, (dict,), "an object")

    def items(self, name: str, of: type | None = None, *, optional: bool = False) -> Any:
        """A list field; with ``of``, each item of that type (bool is never an int)."""
        found = self._typed(name, optional, (list,), "a list")
        if found is not None and of is not None:
            for index, item in enumerate(found):
                if (isinstance(item, bool) and of is not bool) or not isinstance(item, of):
                    words = _WORDS.get(of, of.__name__)
                    self.refuse(name, f"item {index + 1}: expected {words}, got {kind(item)}")
        return found

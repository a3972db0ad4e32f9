"""What a row may hold: timestamps, canonical JSON and values cleaned so SQLite stores them.

Whatever a server sent, a row can be written: text loses lone surrogates and NUL characters and
has configured secrets redacted, numbers SQLite cannot keep become NULL.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import re
from datetime import UTC, datetime
from typing import Any

from explaincheck.core.credentials import redact

# Key of the campaign settings that records which explaincheck ran the campaign.
VERSION_KEY = "explaincheck_version"


def software_version() -> str:
    """The installed explaincheck version (shown in reports next to the results)."""
    try:
        return importlib.metadata.version("explaincheck")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def now() -> str:
    """UTC timestamp as ISO text (sortable, readable in any SQLite browser)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def to_json(value: Any) -> str:
    """Canonical JSON (sorted keys) so equal values give equal text and equal hashes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


_INT64 = (-(2**63), 2**63 - 1)
_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_text(text: str) -> str:
    """A string SQLite can store (UTF-8) and other tools read whole: lone surrogates and NUL
    characters (which end a TEXT value in C tools) become U+FFFD, and configured secrets are
    redacted (a server may echo the API key in its error)."""
    text = redact(text)
    if "\0" in text:
        text = text.replace("\0", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def storable(value: Any) -> Any:
    """A column value SQLite can store: text cleaned, ints beyond INTEGER and non-finite
    floats become NULL (a token count of 1e29 or NaN latency is not a number we can keep)."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value if _INT64[0] <= value <= _INT64[1] else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


def storable_json(value: Any) -> Any:
    """A JSON-able value whose text can be stored and read back as standard JSON: strings
    cleaned, non-finite floats as null (JSON has no NaN), keys as text."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {storable_text(str(k)): storable_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable_json(v) for v in value]
    return value

"""Every JSON text the project prints or exports is strict JSON: no ``NaN``, no ``Infinity``.

Why: Python's ``json.dumps`` writes a float NaN as ``NaN``, which is not JSON; jq, a browser's
``JSON.parse`` and most other languages' readers refuse the whole document (``results --by-case
--json`` wrote ``"stability": NaN`` for a case run once). A value that is not a finite number
is unknown, so it is written as ``null``. The fast path is the plain encoder with
``allow_nan=False``; only a value that holds a non-finite float is copied with ``null``s.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, TextIO


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (NaN, ±Infinity) replaced by None; mappings and
    sequences copied (as dicts and lists), anything else as it is."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, **options)`` as strict JSON (non-finite numbers as null)."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:  # a NaN or an infinity somewhere: copy with nulls and write again
        convert = options.pop("default", None)
        if convert is not None:  # what ``default`` makes of an object is made finite too
            options["default"] = lambda item: finite(convert(item))
        return json.dumps(finite(value), allow_nan=False, **options)


def write(value: Any, out: TextIO, **options: Any) -> None:
    """``value`` written to ``out`` as strict JSON, one document and a newline."""
    out.write(dumps(value, **options) + "\n")

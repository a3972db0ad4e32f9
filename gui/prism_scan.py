"""A quick look into a PRISM file before model checking: undefined constants and labels.

The GUI asks for undefined constants and offers goal/unsafe labels before the oracle runs,
without starting Storm. A light regular-expression scan is enough for that; Storm remains the
judge of the file's syntax (its errors, with line and column, are shown as they come).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_COMMENT = re.compile(r"//[^\n]*")
_CONST = re.compile(
    r"\bconst\s+(?:(int|double|bool)\s+)?([A-Za-z_]\w*)\s*(=\s*[^;]+)?;", re.MULTILINE
)
_LABEL = re.compile(r'\blabel\s+"([^"]+)"\s*=')
_MAX_BYTES = 5_000_000


@dataclass(frozen=True)
class Constant:
    name: str
    type: str  # "int", "double" or "bool"
    defined: bool


@dataclass(frozen=True)
class PrismScan:
    constants: tuple[Constant, ...]
    labels: tuple[str, ...]

    @property
    def undefined(self) -> tuple[Constant, ...]:
        return tuple(c for c in self.constants if not c.defined)


def scan_text(text: str) -> PrismScan:
    text = _COMMENT.sub("", text)
    constants = tuple(
        Constant(name=m.group(2), type=m.group(1) or "int", defined=m.group(3) is not None)
        for m in _CONST.finditer(text)
    )
    labels = tuple(dict.fromkeys(m.group(1) for m in _LABEL.finditer(text)))
    return PrismScan(constants, labels)


def scan_file(path: str | Path) -> PrismScan:
    """Scan a file (unreadable or binary files give an empty scan; the oracle reports them)."""
    try:
        data = Path(path).read_bytes()[:_MAX_BYTES]
        return scan_text(data.decode("utf-8", errors="replace"))
    except OSError:
        return PrismScan((), ())


def parse_constants(text: str) -> dict[str, str]:
    """'N=4,p=0.5' -> {'N': '4', 'p': '0.5'} (empty parts ignored)."""
    result: dict[str, str] = {}
    for part in text.split(","):
        if "=" in part:
            name, value = part.split("=", 1)
            if name.strip():
                result[name.strip()] = value.strip()
    return result


def format_constants(values: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in values.items() if v != "")


def missing_constants(scan: PrismScan, given: str) -> list[Constant]:
    """Undefined constants of the file that ``given`` does not set."""
    values = parse_constants(given)
    return [c for c in scan.undefined if c.name not in values]

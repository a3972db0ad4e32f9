"""A ``--const`` text (``N=4,HOLE=true,p=0.5``) and its literal values, read in one place.

Why one module: the environment loader, the oracle's builder, the valuation search and the
sweeps (CLI, GUI, tipping points) each split or typed this text with their own copy. The
oracle, the lowest layer that reads it, holds it. Values typed here
are what PRISM's constants and variables take: ``true``/``false`` (any case), an int, a float.
A value Storm reads as an expression (``p=1/3``) stays text in ``constant_parts``.
"""

from __future__ import annotations

Literal = int | float | bool


def constant_parts(text: str) -> list[tuple[str, str]]:
    """``"N=4, p=1/3"`` -> ``[("N", "4"), ("p", "1/3")]`` (order kept, blanks skipped).
    Raises ``ValueError`` naming the part without ``=``."""
    parts = []
    for part in text.split(","):
        if not part.strip():
            continue
        name, equals, raw = part.partition("=")
        if not equals:
            raise ValueError(f"bad constant definition {part.strip()!r}: expected NAME=VALUE")
        parts.append((name.strip(), raw.strip()))
    return parts


def without_constant(text: str, name: str) -> str:
    """``text`` with the definition of ``name`` left out (e.g. the constant a sweep varies)."""
    kept = [p.strip() for p in text.split(",") if p.strip() and p.partition("=")[0].strip() != name]
    return ",".join(kept)


def literal(raw: str) -> Literal:
    """``"true"`` -> True, ``"4"`` -> 4, ``"0.5"`` -> 0.5; ``ValueError`` for anything else."""
    lowered = raw.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(raw)
    except ValueError:
        pass
    return float(raw)  # raises ValueError for a non-number


def literal_text(value: Literal) -> str:
    """How a value reads in ``--const`` (``true``, ``4``, ``0.5``): the inverse of ``literal``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)

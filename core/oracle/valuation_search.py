"""Finding states by their valuation: ``x=3, y=5``, ``x=3 & y=5`` or ``row >= 2 and flag=true``.

The GUI's search field jumps to a state; this module parses what the user typed and matches it
against the oracle's states without Qt, so it can be tested alone and run off the GUI thread.
Conditions are joined by ``,``, ``&``, ``&&``, ``and`` or plain spaces, and all must hold.
A variable may be given by its PRISM name or by the environment's name for it ("row" for "r").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.constants_text import literal
from explaincheck.core.oracle.types import StateFacts

OPERATORS = ("<=", ">=", "!=", "==", "=", "<", ">")
_CONDITION = re.compile(  # the operators longest first, so "<=" is never read as "<"
    rf"\s*([A-Za-z_][\w.]*)\s*({'|'.join(map(re.escape, OPERATORS))})\s*([^\s,&;]*)\s*"
)
_JOINER = re.compile(r"\s*(?:,|;|&&|&|\band\b)\s*|\s+", re.IGNORECASE)


class ValuationQueryError(ExplaincheckError):
    """What the user typed is not a list of conditions on variables (one line saying why)."""


@dataclass(frozen=True)
class Condition:
    """``variable operator value`` (``==`` is read as ``=``); the value is an int, a float or
    a bool."""

    variable: str
    operator: str
    value: int | float | bool

    def holds(self, actual: int | float | bool | None) -> bool:
        if actual is None:
            return False
        if isinstance(self.value, bool) or isinstance(actual, bool):
            if not (isinstance(self.value, bool) and isinstance(actual, bool)):
                return False
            if self.operator == "=":
                return actual == self.value
            if self.operator == "!=":
                return actual != self.value
            return False
        return {
            "=": actual == self.value,
            "!=": actual != self.value,
            "<": actual < self.value,
            "<=": actual <= self.value,
            ">": actual > self.value,
            ">=": actual >= self.value,
        }[self.operator]

    def __str__(self) -> str:
        value = str(self.value).lower() if isinstance(self.value, bool) else self.value
        return f"{self.variable}{self.operator}{value}"


def looks_like_valuation(text: str) -> bool:
    """Whether ``text`` is meant as conditions (it has a comparison), not an id or a label."""
    return any(op in text for op in ("=", "<", ">"))


def parse_query(
    text: str, variables: Sequence[str], names: Mapping[str, str] | None = None
) -> tuple[Condition, ...]:
    """The conditions of ``text`` over the model's ``variables`` (``names``: variable -> its
    name for people, also accepted). Raises ValuationQueryError with what is wrong."""
    by_name = {v: v for v in variables}
    for variable, name in (names or {}).items():
        if variable in by_name:
            by_name.setdefault(name, variable)
    text = text.strip()
    if not text:
        raise ValuationQueryError("empty search: type conditions such as x=3, y=5")
    conditions: list[Condition] = []
    position = 0
    while position < len(text):
        joiner = _JOINER.match(text, position)
        if conditions and joiner and joiner.end() > position:
            position = joiner.end()
        match = _CONDITION.match(text, position)
        if match is None:
            rest = text[position:].strip()
            raise ValuationQueryError(
                f"cannot read “{rest}”: expected a condition such as x=3 (joined by , or &)"
            )
        name, operator, raw = match.groups()
        if name not in by_name:
            known = ", ".join(variables) or "none"
            raise ValuationQueryError(f"unknown variable “{name}”; the variables are {known}")
        if not raw:
            raise ValuationQueryError(f"“{name}{operator}” needs a value")
        operator = "=" if operator == "==" else operator
        conditions.append(Condition(by_name[name], operator, _value(raw, name, operator)))
        position = match.end()
    return tuple(conditions)


def _value(raw: str, name: str, operator: str) -> int | float | bool:
    try:
        value = literal(raw)
    except ValueError:
        raise ValuationQueryError(
            f"“{raw}” is not a number or true/false (in {name}{operator}{raw})"
        ) from None
    if isinstance(value, bool) and operator not in ("=", "==", "!="):
        raise ValuationQueryError(f"“{name}{operator}{raw}”: booleans compare with = or !=")
    return value


def matching_states(
    states: Iterable[StateFacts], conditions: Sequence[Condition], limit: int | None = None
) -> list[int]:
    """Ids of the states where every condition holds, in id order (at most ``limit``)."""
    found: list[int] = []
    for state in states:
        valuation = state.valuation
        if all(c.holds(valuation.get(c.variable)) for c in conditions):
            found.append(state.id)
            if limit is not None and len(found) >= limit:
                break
    return found


def describe(conditions: Sequence[Condition]) -> str:
    """``x=3, y=5``: the conditions as the messages repeat them."""
    return ", ".join(str(c) for c in conditions)

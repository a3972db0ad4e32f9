"""What a PRISM program declares, as plain data: the types of ``program.describe_program``.

Apart from ``program.py`` so that the parser's child (``program_child.py``), which builds these,
and the parent, which starts that child, both import them without importing each other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class ProgramVariable:
    """A state variable; bounds and initial value are Storm's text of the expressions."""

    name: str
    module: str | None  # None for a global variable
    type: str  # "int" or "bool"
    lower: str | None  # integer bounds, e.g. "0" and "(CAP + 1)"
    upper: str | None
    initial: str | None  # Storm fills in the default (lower bound, false) when there is no init

    @property
    def range_text(self) -> str:
        """``"integer 0..4"`` or ``"true or false"``."""
        return f"integer {self.lower}..{self.upper}" if self.type == "int" else "true or false"


@dataclass(frozen=True)
class ProgramConstant:
    """A ``const``: its PRISM type and, when the file defines it, the definition and value."""

    name: str
    type: str  # "int", "double" or "bool"
    definition: str | None  # Storm's text of the defining expression; None if undefined
    default: int | float | bool | None  # its value, when it needs no undefined constant

    @property
    def defined(self) -> bool:
        return self.definition is not None


@dataclass(frozen=True)
class ProgramLabel:
    name: str
    expression: str  # with formulas inlined


@dataclass(frozen=True)
class ProgramCommand:
    module: str
    action: str | None  # None for an unlabelled command
    guard: str
    text: str  # "guard -> p : updates + ...", without the "[action]" prefix


@dataclass(frozen=True)
class ProgramDescription:
    """What a PRISM file declares, in declaration order, as plain data."""

    path: str
    content_hash: str
    model_type: str  # "MDP", "DTMC", ...
    modules: tuple[str, ...]
    variables: tuple[ProgramVariable, ...]
    labels: tuple[ProgramLabel, ...]
    constants: tuple[ProgramConstant, ...]
    commands: tuple[ProgramCommand, ...]

    @property
    def variable_names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variables)

    @property
    def label_names(self) -> tuple[str, ...]:
        return tuple(label.name for label in self.labels)

    @property
    def actions(self) -> tuple[str, ...]:
        """The action names of labelled commands, each once, in order of appearance."""
        return tuple(dict.fromkeys(c.action for c in self.commands if c.action))

    @property
    def undefined(self) -> tuple[ProgramConstant, ...]:
        return tuple(c for c in self.constants if not c.defined)

    def constant(self, name: str) -> ProgramConstant | None:
        return next((c for c in self.constants if c.name == name), None)

    def commands_of(self, action: str) -> tuple[ProgramCommand, ...]:
        return tuple(c for c in self.commands if c.action == action)

    def missing_constants(self, given: Iterable[str]) -> tuple[ProgramConstant, ...]:
        """The undefined constants that ``given`` (names set by ``--const``) leaves open."""
        names = set(given)
        return tuple(c for c in self.undefined if c.name not in names)


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

"""What the generic wording takes from a PRISM file's own text: formulas, commands, comments.

Storm's parser inlines formulas into every guard (``!((pos = 0)) & !((pos = TARGET))``) and drops
comments; a person's model says ``!at_trap & !at_exit`` and ``pos : [0..4]; // the tile``. The
generic wording reads better, and is about half as long, with the model's own names, so it takes
them from the text. Storm has parsed the same file already (the oracle and ``describe_program``),
so the text is valid PRISM; anything this light reading does not find (a renamed module's
commands) falls back to Storm's text.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path

_COMMENT = re.compile(r"//[^\n]*")
_FORMULA = re.compile(r"\bformula\s+(\w+)\s*=\s*(.*?);", re.DOTALL)
_LABEL = re.compile(r'\blabel\s+"(\w+)"\s*=\s*(.*?);', re.DOTALL)
_MODULE = re.compile(r"\bmodule\s+\w+\s*(?!=)(.*?)\bendmodule\b", re.DOTALL)
_COMMAND = re.compile(r"\[\s*(\w*)\s*\](.*?)->(.*?);", re.DOTALL)
_REWARDS = re.compile(r'\brewards\s*(?:"([^"]*)")?(.*?)\bendrewards\b', re.DOTALL)
_VARIABLE_COMMENT = re.compile(r"^\s*(\w+)\s*:\s*[^;]*;\s*//\s*(.+?)\s*$", re.MULTILINE)
_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


@dataclass(frozen=True)
class SourceCommand:
    action: str | None
    guard: str
    updates: str


@dataclass(frozen=True)
class SourceText:
    """The parts of a PRISM file the generic wording shows, in the file's own words."""

    formulas: dict[str, str] = field(default_factory=dict)
    commands: tuple[SourceCommand, ...] = ()
    comments: dict[str, str] = field(default_factory=dict)  # variable -> its comment
    labels: dict[str, str] = field(default_factory=dict)  # label -> its condition
    rewards: dict[str, str] = field(default_factory=dict)  # rewards block -> its items

    def commands_of(self, action: str) -> tuple[SourceCommand, ...]:
        return tuple(c for c in self.commands if c.action == action)


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def read_source(path: str | Path) -> SourceText:
    """Formulas, labelled commands and variable comments of the PRISM file at ``path``."""
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return SourceText()
    comments = {name: _squeeze(text) for name, text in _VARIABLE_COMMENT.findall(raw)}
    text = _COMMENT.sub("", raw)
    formulas = {name: _squeeze(body) for name, body in _FORMULA.findall(text)}
    labels = {name: _squeeze(body) for name, body in _LABEL.findall(text)}
    rewards = {name: _squeeze(body) for name, body in _REWARDS.findall(text)}
    commands = []
    for body in _MODULE.findall(text):
        for action, guard, updates in _COMMAND.findall(body):
            commands.append(SourceCommand(action or None, _squeeze(guard), _squeeze(updates)))
    return SourceText(formulas, tuple(commands), comments, labels, rewards)


def identifiers(*texts: str) -> set[str]:
    """Every name that occurs in ``texts`` (variables, constants, formulas, keywords)."""
    return {name for text in texts for name in _IDENTIFIER.findall(text)}


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def evaluate(definition: str, known: dict[str, int | float | bool]) -> int | float | None:
    """The value of a constant's defining expression (numbers, known constants, + − * /), or
    None: enough for ``TARGET = N`` or ``CAP = 2*N + 1``; anything else stays as its text."""
    try:
        tree = ast.parse(definition.strip(), mode="eval").body
    except SyntaxError:
        return None

    def value(node: ast.AST) -> int | float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.Name) and isinstance(known.get(node.id), int | float):
            return known[node.id]  # type: ignore[return-value]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        raise ValueError("not a plain number expression")

    try:
        result = value(tree)
    except (ValueError, ZeroDivisionError):
        return None
    return int(result) if isinstance(result, float) and result.is_integer() else result

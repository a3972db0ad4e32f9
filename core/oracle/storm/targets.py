"""Goal and unsafe sets named by a label or by a PRISM expression (``--goal 's1=12 & s2=12'``,
``--goal '"finished" & !"agree"'``), as the PRISM benchmark suite writes its properties.

A text that is one of the model's labels stays that label. Anything else is read by Storm as a
state formula over the model's variables, formulas and labels; after the build its states are
added to the model's labelling under the text itself, so everything downstream (values, the goal
set, bottlenecks, the JSON's labels) treats an expression exactly like a label.

Why a size limit before Storm sees a text (``check_target_text``, called where a goal or a
property is read: the command line's ``--goal``/``--unsafe``, ``property.parse_property`` for
every ``--property``, props file and environment property, and before the oracle's child
starts): Storm's
expression parsers recurse per nesting level and echo what they could not read, so 30,000
nested parentheses crashed the model checker (exit status -11) and 15,000 terms printed a
180 KB error line. An empty text is refused too (``--goal ''`` once meant the label "goal").
Errors quote at most ``SHOWN_CHARACTERS`` of a text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle.storm.types import PrismProgram, Property, SparseModel

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_QUOTED = re.compile(r'"([^"]*)"')
_POSITION = re.compile(r"[Pp]arsing error at (\d+):(\d+):\s*(.*)")
BUILT_IN_LABELS = ("init", "deadlock")
# Storm read 8,000 terms (28,000 characters) and 1,000 nested parentheses, and crashed at 2,000:
# the limits stay well inside what was seen to work.
MAX_CHARACTERS = 10_000  # a goal over a hundred variables is ~1,500 characters
MAX_TERMS = 2_000  # variables, labels and numbers
MAX_DEPTH = 100  # nested parentheses
SHOWN_CHARACTERS = 60  # of a text quoted in an error
_TERM = re.compile(r'"[^"]*"|[A-Za-z_]\w*|\d+(?:\.\d+)?')


@dataclass(frozen=True)
class Target:
    """A goal or unsafe set: the user's text, and the state formula Storm is given."""

    text: str
    formula: str  # '"goal"' for a label, '(x = 3 & key)' for an expression
    expression: Property | None  # the parsed state formula of an expression (None: a label)
    # what the builder is given so that Storm labels the expression's parts: ``X (expr)``, since
    # a bare expression or ``F (expr)`` makes Storm stop exploring at its states (coin2 at K=8
    # has 1,040 states, 788 built for ``F (pc1 = 3)``)
    keep: Property | None = None


def shown_target(text: str) -> str:
    """``text`` quoted for an error, cut after ``SHOWN_CHARACTERS`` with its length said."""
    if len(text) <= SHOWN_CHARACTERS:
        return repr(text)
    return f"{text[:SHOWN_CHARACTERS]!r}... ({len(text):,} characters)"


def _depth(text: str) -> int:
    depth = deepest = 0
    for character in text:
        if character == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif character == ")":
            depth -= 1
    return deepest


def check_target_text(text: str, role: str) -> None:
    """Refuse an empty ``role`` (goal, unsafe, property) or one past the stated size
    (characters, terms, nesting) before Storm reads it; one ``ModelError`` line naming the
    limit."""
    if not text.strip():
        raise ModelError(f"the {role} is empty: give a label or a PRISM expression")
    terms, depth = len(_TERM.findall(text)), _depth(text)
    over = (
        f"is longer than the {MAX_CHARACTERS:,} characters read"
        if len(text) > MAX_CHARACTERS
        else f"has {terms:,} terms (variables, labels, numbers), over the {MAX_TERMS:,} read"
        if terms > MAX_TERMS
        else f"nests parentheses {depth:,} deep, over the {MAX_DEPTH} levels read"
        if depth > MAX_DEPTH
        else ""
    )
    if over:
        raise ModelError(
            f"the {role} expression {shown_target(text)} {over}; write a larger one as a label"
            " in the model"
        )


def formula_of(text: str, labels: tuple[str, ...]) -> str:
    """How a goal or unsafe set given as ``text`` is written inside a property."""
    return f'"{text}"' if text in labels else f"({text})"


def target(
    text: str, role: str, program: PrismProgram, labels: tuple[str, ...], path: Path
) -> Target | None:
    """``text`` as a goal or unsafe set, or None when it is a bare name that is neither a label
    nor a boolean expression (the caller says what a missing label means for ``role``)."""
    if text in labels:
        return Target(text, f'"{text}"', None)
    try:
        check_target_text(text, role)
    except ModelError as error:
        raise ModelError(f"{path}: {error}") from None
    for name in _QUOTED.findall(text):
        if name not in labels and name not in BUILT_IN_LABELS:
            raise ModelError(
                f"{path}: the {role} expression {shown_target(text)} names the label"
                f' "{name[:SHOWN_CHARACTERS]}", which is not defined; labels are:'
                f" {', '.join(labels) or 'none'}"
            )
    try:
        parsed = _parse(text, program)
    except ModelError:
        if _IDENTIFIER.fullmatch(text.strip()):
            return None  # a label name that the model lacks
        raise
    except _Unparsed as error:
        if _IDENTIFIER.fullmatch(text.strip()):
            return None
        raise ModelError(f"{path}: the {role} expression {shown_target(text)}: {error}") from None
    import stormpy

    keep = stormpy.parse_properties(f"Pmax=? [X ({text})]", program)[0]
    return Target(text, f"({text})", parsed, keep)


class _Unparsed(Exception):
    """Storm could not read the text as a state formula (the message says where)."""


def _parse(text: str, program: PrismProgram) -> Property:
    import stormpy

    if ";" in text:
        raise _Unparsed("1:" + str(text.index(";") + 1) + ": one expression, without ';'")
    try:
        found = stormpy.parse_properties(text, program)
    except Exception as error:
        message = re.sub(r"^\w+Exception:\s*", "", str(error).strip())
        match = _POSITION.search(message)
        if match:
            detail = match.group(3).split("\n")[0].strip()
            detail = re.sub(r",?\s*here:?$", "", detail)[:SHOWN_CHARACTERS] or "syntax error"
            raise _Unparsed(f"{match.group(1)}:{match.group(2)}: syntax error: {detail}") from None
        raise _Unparsed(
            "1:1: not a boolean expression over the model's variables, formulas and labels"
        ) from None
    kind = type(found[0].get_raw_formula()).__name__ if len(found) == 1 else ""
    if not kind or "Operator" in kind or "MultiObjective" in kind:  # P=?, R=?, multi(...)
        raise _Unparsed("1:1: a boolean expression is needed, not a query")
    return found[0]


def label_expressions(model: SparseModel, targets: list[Target]) -> None:
    """Add each expression target's states to ``model``'s labelling, under its text."""
    import stormpy

    labeling = model.labeling
    for each in targets:
        if each.expression is None or labeling.contains_label(each.text):
            continue
        truth = stormpy.model_checking(model, each.expression).get_truth_values_vector()
        labeling.add_label(each.text)
        labeling.set_states(each.text, truth)

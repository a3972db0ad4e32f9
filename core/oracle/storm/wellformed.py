"""Refuse ill-formed PRISM commands (probabilities not summing to one, updates out of a variable's
range) with one line that names the command and its line:col, as PRISM itself would.

Two checks work together. Before any build, every command whose probabilities are constant is
summed here in exact fractions, so a sum like 0.9 + 0.9 is refused at its line. During the build,
Storm's own exploration checks catch what depends on the state (out-of-range updates, sums of
state-dependent probabilities); Storm names the command by its text, which is mapped back to its
place in the file. Storm's float builder compares sums of doubles exactly, so a float sum that is
1 up to rounding (4/5 + 1/10 + 1/10) is a false alarm: ``is_rounding`` tells it apart.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle.storm.types import Expression, PrismCommand, PrismProgram, SparseModel

if TYPE_CHECKING:
    import numpy as np

# A float sum this close to one is rounding, not a fault (Storm prints up to 17 digits).
ROUNDING = 1e-9
# A built choice's float probabilities summing to one this closely is rounding.
ROW_ROUNDING = 1e-12

_SUM_ERROR = re.compile(
    r"Probabilities do not sum to one for command '(.*)' \(actually sum to (.*)\)"
)
_RANGE_ERROR = re.compile(
    r"The update (.*) leads to an out-of-bounds value \((.*)\) for the variable '(.*)'"
)
_COMMENT = re.compile(r"//[^\n]*")
_MODULE = re.compile(r"\bmodule\s+(\w+)\s*(=\s*(\w+))?")


def command_positions(text: str) -> dict[str, list[tuple[int, int]]]:
    """Line and column (1-based) of each command, per module name, in file order; a renamed
    module (``module m2 = m1 [...]``) points at the commands of the module it copies."""
    clean = _COMMENT.sub(lambda match: " " * len(match.group(0)), text)
    line_starts = [0] + [index + 1 for index, char in enumerate(clean) if char == "\n"]

    def place(offset: int) -> tuple[int, int]:
        line = _bisect(line_starts, offset)
        return line + 1, offset - line_starts[line] + 1

    positions: dict[str, list[tuple[int, int]]] = {}
    renamed: dict[str, str] = {}
    for match in _MODULE.finditer(clean):
        name = match.group(1)
        end = clean.find("endmodule", match.end())
        if end < 0:
            continue
        if match.group(3):
            renamed[name] = match.group(3)
            continue
        body_start = match.end()
        found = []
        statement_start = body_start
        for index in range(body_start, end):
            if clean[index] == ";":
                statement = clean[statement_start:index]
                stripped = len(statement) - len(statement.lstrip())
                if statement.strip().startswith("["):
                    found.append(place(statement_start + stripped))
                statement_start = index + 1
        positions[name] = found
    for name, source in renamed.items():
        positions[name] = positions.get(source, [])
    return positions


def _bisect(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low


def _substituted(program: PrismProgram) -> PrismProgram:
    """The program with formulas and constants written out, as Storm's builder sees it (its
    messages print commands this way, and constant probabilities become literals)."""
    return program.substitute_formulas().substitute_constants()


def _commands(
    program: PrismProgram, *, formulas: bool = True
) -> Iterator[tuple[str, int, PrismCommand]]:
    """(module name, index in module, command) for every command of the program; without
    ``formulas`` only constants are written out (writing out formulas can take exponential
    time on a pathological file, so the check before building leaves that to Storm)."""
    written = _substituted(program) if formulas else program.substitute_constants()
    for module in written.modules:
        for index, command in enumerate(module.commands):
            yield module.name, index, command


def _where(
    path: Path, positions: dict, module: str, index: int
) -> tuple[str, int | None, int | None]:
    places = positions.get(module, [])
    if index < len(places):
        line, column = places[index]
        return f"{path}:{line}:{column}", line, column
    return str(path), None, None


def _action(command: PrismCommand) -> str:
    return f"[{command.action_name}]" if command.is_labeled else "[]"


def check_constant_sums(program: PrismProgram, path: Path, text: str) -> None:
    """Refuse a command whose constant probabilities do not sum to exactly one."""
    positions: dict | None = None
    for module, index, command in _commands(program, formulas=False):
        total = Fraction(0)
        for update in command.updates:
            expression = update.probability_expression
            if expression.contains_variables():
                break
            try:
                total += Fraction(str(expression.evaluate_as_rational()))
            except (ValueError, ZeroDivisionError, RuntimeError):
                break
        else:
            if total != 1:
                positions = command_positions(text) if positions is None else positions
                where, line, column = _where(path, positions, module, index)
                raise ModelError(
                    f"{where}: the probabilities of command {_action(command)} in module "
                    f"{module} sum to {_fraction(total)}, not 1",
                    line=line,
                    column=column,
                )


def _fraction(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value} (= {float(value):g})"


def _printed(value: str) -> str:
    """Storm's printed sum ("7/10" from the exact build, "0.7" from the float one) as one text."""
    try:
        return _fraction(Fraction(value).limit_denominator(10**9))
    except (ValueError, ZeroDivisionError):
        return value


def is_rounding(message: str) -> bool:
    """Whether Storm's error is a float sum that is one up to rounding (not a real fault)."""
    match = _SUM_ERROR.search(message)
    if not match:
        return False
    try:
        return abs(float(Fraction(match.group(2))) - 1) <= ROUNDING
    except (ValueError, ZeroDivisionError):
        return False


def explain(message: str, program: PrismProgram, path: Path, text: str) -> ModelError | None:
    """One line for Storm's exploration-check ``message`` naming the command and its place, or
    None when the message is not an exploration check."""
    summed = _SUM_ERROR.search(message)
    ranged = _RANGE_ERROR.search(message)
    if not summed and not ranged:
        return None
    positions = command_positions(text)
    for module, index, command in _commands(program):
        if summed and str(command).rstrip(";").strip() == summed.group(1).rstrip(";").strip():
            where, line, column = _where(path, positions, module, index)
            return ModelError(
                f"{where}: the probabilities of command {_action(command)} in module {module} "
                f"sum to {_printed(summed.group(2))} in some state, not 1",
                line=line,
                column=column,
            )
        if ranged and any(str(update) == ranged.group(1) for update in command.updates):
            where, line, column = _where(path, positions, module, index)
            return ModelError(
                f"{where}: command {_action(command)} in module {module} sets "
                f"{ranged.group(3)} to {ranged.group(2)}, outside its range ({ranged.group(1)})",
                line=line,
                column=column,
            )
    if summed:
        return ModelError(
            f"{path}: the probabilities of command {summed.group(1)} sum to "
            f"{summed.group(2)} in some state, not 1"
        )
    assert ranged is not None
    return ModelError(
        f"{path}: the update {ranged.group(1)} sets {ranged.group(3)} to "
        f"{ranged.group(2)}, outside its range"
    )


def check_row_sums(model: SparseModel, path: str) -> None:
    """Refuse a float model built without exploration checks in which some choice's
    probabilities do not sum to one within ``ROW_ROUNDING`` (a state-dependent fault)."""
    from explaincheck.core.oracle.storm.bulk import matrix_arrays

    _, offsets, _, probabilities = matrix_arrays(model)
    check_sums(offsets, probabilities, path)


def check_sums(offsets: np.ndarray, probabilities: np.ndarray, path: str) -> None:
    """``check_row_sums`` on a matrix already read (``offsets``: each row's first entry)."""
    import numpy as np  # here: ``explaincheck oracle`` reads this module's file checks without it

    nonempty = np.diff(offsets) > 0
    sums: np.ndarray = (
        np.add.reduceat(probabilities, offsets[:-1][nonempty])
        if len(probabilities)
        else np.zeros(0)
    )
    off = np.flatnonzero(np.abs(np.asarray(sums) - 1.0) > ROW_ROUNDING)
    if len(off):
        row = int(np.flatnonzero(nonempty)[off[0]])
        raise ModelError(
            f"{path}: the probabilities of a command sum to {float(sums[off[0]]):.17g} in some"
            f" state, not 1 ({len(off):,} choices, the first is choice {row})"
        )


def updates_stay_in_range(program: PrismProgram) -> bool:
    """Whether every update of an integer variable provably keeps it within its range, by
    interval arithmetic over the update's expression, each variable in its own range narrowed
    by the simple bounds its command's guard states (``x < 9 & ...``). False where that cannot
    be shown (a division, a bound that names a variable, a guard too intricate to read):
    Storm's exploration checks then have something to decide."""
    try:
        program = program.substitute_constants()
        ranges = _ranges(program)
        for module in program.modules:
            for command in module.commands:
                known = _narrowed(command.guard_expression, ranges)
                for update in command.updates:
                    for assignment in update.assignments:
                        bounds = ranges.get(assignment.variable.name)
                        if bounds is None:
                            continue  # a boolean: always within its range
                        found = _interval(assignment.expression, known)
                        if found is None or found[0] < bounds[0] or found[1] > bounds[1]:
                            return False
    except Exception:  # an expression Storm cannot take apart: nothing is shown
        return False
    return True


Interval = tuple[float, float]


def _ranges(program: PrismProgram) -> dict[str, Interval]:
    """Each integer variable's declared range (a bound naming a variable: unbounded)."""
    variables = list(program.global_integer_variables)
    for module in program.modules:
        variables += list(module.integer_variables)
    ranges: dict[str, Interval] = {}
    for variable in variables:
        low, high = variable.lower_bound_expression, variable.upper_bound_expression
        if low.contains_variables() or high.contains_variables():
            ranges[variable.name] = (-math.inf, math.inf)
        else:
            ranges[variable.name] = (low.evaluate_as_int(), high.evaluate_as_int())
    return ranges


def _narrowed(guard: Expression, ranges: dict[str, Interval]) -> dict[str, Interval]:
    """``ranges`` narrowed by the guard's conjuncts of the form variable <op> literal."""
    known = dict(ranges)
    pending = [guard]
    while pending:
        part = pending.pop()
        if not part.is_function_application:
            continue
        kind = part.operator.name
        if kind == "AND":
            pending += [part.get_operand(i) for i in range(part.arity)]
            continue
        if kind not in _COMPARISONS or part.arity != 2:
            continue
        left, right = part.get_operand(0), part.get_operand(1)
        if left.is_variable() and right.is_literal() and _name(left) in known:
            _narrow(known, _name(left), kind, float(right.evaluate_as_double()))
        elif right.is_variable() and left.is_literal() and _name(right) in known:
            _narrow(known, _name(right), _MIRRORED[kind], float(left.evaluate_as_double()))
    return known


_COMPARISONS = ("LESS", "LESS_OR_EQUAL", "GREATER", "GREATER_OR_EQUAL", "EQUAL")
_MIRRORED = {
    "LESS": "GREATER",
    "LESS_OR_EQUAL": "GREATER_OR_EQUAL",
    "GREATER": "LESS",
    "GREATER_OR_EQUAL": "LESS_OR_EQUAL",
    "EQUAL": "EQUAL",
}


def _narrow(known: dict[str, Interval], name: str, kind: str, value: float) -> None:
    low, high = known[name]
    if kind == "LESS":
        high = min(high, math.ceil(value) - 1)
    elif kind == "LESS_OR_EQUAL":
        high = min(high, math.floor(value))
    elif kind == "GREATER":
        low = max(low, math.floor(value) + 1)
    elif kind == "GREATER_OR_EQUAL":
        low = max(low, math.ceil(value))
    else:
        low, high = max(low, value), min(high, value)
    known[name] = (low, high)


def _name(expression: Expression) -> str:
    return next(iter(expression.get_variables())).name


def _truth(condition: Expression, known: dict[str, Interval]) -> bool | None:
    """Whether a comparison holds for every value of its sides' intervals (True), for none
    (False), or either (None)."""
    if not condition.is_function_application or condition.arity != 2:
        return None
    kind = condition.operator.name
    if kind not in _COMPARISONS or kind == "EQUAL":
        return None
    left, right = (
        _interval(condition.get_operand(0), known),
        _interval(condition.get_operand(1), known),
    )
    if left is None or right is None:
        return None
    (a, b), (c, d) = left, right
    always, never = {
        "LESS": (b < c, a >= d),
        "LESS_OR_EQUAL": (b <= c, a > d),
        "GREATER": (a > d, b <= c),
        "GREATER_OR_EQUAL": (a >= d, b < c),
    }[kind]
    return True if always else False if never else None


def _interval(expression: Expression, known: dict[str, Interval]) -> Interval | None:
    """The values ``expression`` can take with each variable in its interval (None: not
    shown, e.g. a division or an operator this does not read)."""
    if expression.is_literal():
        value = float(expression.evaluate_as_double())
        return value, value
    if expression.is_variable():
        return known.get(_name(expression))
    if not expression.is_function_application:
        return None
    kind = expression.operator.name
    operands = [expression.get_operand(i) for i in range(expression.arity)]
    if kind == "ITE":
        holds = _truth(operands[0], known)
        if holds is not None:  # a condition the intervals decide (PRISM's mod is written so)
            return _interval(operands[1] if holds else operands[2], known)
        then, otherwise = _interval(operands[1], known), _interval(operands[2], known)
        if then is None or otherwise is None:
            return None
        return min(then[0], otherwise[0]), max(then[1], otherwise[1])
    found = [_interval(operand, known) for operand in operands]
    if any(part is None for part in found):
        return None
    parts = [part for part in found if part is not None]
    if kind == "MINUS" and len(parts) == 1:
        return -parts[0][1], -parts[0][0]
    if len(parts) != 2:
        return None
    (a, b), (c, d) = parts
    if kind == "PLUS":
        return a + c, b + d
    if kind == "MINUS":
        return a - d, b - c
    if kind == "TIMES":
        products = [a * c, a * d, b * c, b * d]
        return min(products), max(products)
    if kind == "MIN":
        return min(a, c), min(b, d)
    if kind == "MAX":
        return max(a, c), max(b, d)
    if kind == "MODULO" and c == d and c > 0 and a >= 0:
        return 0.0, min(b, c - 1)
    return None

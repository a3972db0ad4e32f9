"""Read a PRISM program with stormpy into a ``ProgramDescription`` (runs in the isolated child).

Only this module walks stormpy's program objects; the caller gets plain data back through a pipe
(``program.describe_program``), so a Storm crash while parsing ends the child, not the caller.
Formulas are inlined, so every label and command reads on its own; constants stay by name.
"""

from __future__ import annotations

import os
from multiprocessing.connection import Connection
from pathlib import Path

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle.program_types import (
    ProgramCommand,
    ProgramConstant,
    ProgramDescription,
    ProgramLabel,
    ProgramVariable,
    content_hash,
)
from explaincheck.core.oracle.storm.types import Expression, PrismConstant, PrismProgram

# Storm's names for PRISM's constant types.
_TYPES = {"int": "int", "rational": "double", "double": "double", "bool": "bool"}


def describe_in_process(path: str | Path) -> ProgramDescription:
    """The description of a PRISM file, read in this process (the child, or a benchmark)."""
    from explaincheck.core.oracle.storm.building import _check_file, parse_program

    path = Path(path)
    text = _check_file(path)
    program = parse_program(path).substitute_formulas()
    modules = tuple(module.name for module in program.modules)
    return ProgramDescription(
        path=str(path),
        content_hash=content_hash(text),
        model_type=str(program.model_type).split(".")[-1],
        modules=modules,
        variables=_variables(program),
        labels=tuple(ProgramLabel(label.name, str(label.expression)) for label in program.labels),
        constants=tuple(_constant(constant) for constant in program.constants),
        commands=_commands(program),
    )


def _variables(program: PrismProgram) -> tuple[ProgramVariable, ...]:
    """Globals first, then each module's integers and booleans, in declaration order."""
    found: list[ProgramVariable] = []
    holders = [(None, program.global_integer_variables, program.global_boolean_variables)]
    holders += [(m.name, m.integer_variables, m.boolean_variables) for m in program.modules]
    for module, integers, booleans in holders:
        for var in integers:
            found.append(
                ProgramVariable(
                    name=var.name,
                    module=module,
                    type="int",
                    lower=str(var.lower_bound_expression),
                    upper=str(var.upper_bound_expression),
                    initial=_text(var.initial_value_expression),
                )
            )
        for var in booleans:
            initial = _text(var.initial_value_expression)
            found.append(ProgramVariable(var.name, module, "bool", None, None, initial))
    return tuple(found)


def _text(expression: Expression | None) -> str | None:
    if expression is None:
        return None
    text = str(expression)
    return text or None


def _constant(constant: PrismConstant) -> ProgramConstant:
    kind = _TYPES.get(str(constant.type), str(constant.type))
    if not constant.defined:
        return ProgramConstant(constant.name, kind, None, None)
    definition = constant.definition
    return ProgramConstant(constant.name, kind, str(definition), _evaluate(definition, kind))


def _evaluate(expression: Expression, kind: str) -> int | float | bool | None:
    """The defining expression's value, or None when it needs an undefined constant."""
    try:
        if expression.contains_variables():
            return None
        if kind == "bool":
            return bool(expression.evaluate_as_bool())
        if kind == "int":
            return int(expression.evaluate_as_int())
        return float(expression.evaluate_as_double())
    except Exception:  # Storm refuses to evaluate (e.g. a constant defined by another)
        return None


def _commands(program: PrismProgram) -> tuple[ProgramCommand, ...]:
    found: list[ProgramCommand] = []
    for module in program.modules:
        for command in module.commands:
            action = command.action_name if command.is_labeled else None
            text = str(command).strip().rstrip(";")
            prefix = f"[{action or ''}]"
            if text.startswith(prefix):
                text = text[len(prefix) :].strip()
            found.append(ProgramCommand(module.name, action, str(command.guard_expression), text))
    return tuple(found)


def child(path: str, memory_limit: int, connection: Connection, parent: int) -> None:
    """Child process body: limit memory, mute Storm, describe, send back plain data or one
    line of error (with line and column for a syntax error)."""
    from dataclasses import asdict

    from explaincheck.core.oracle.isolation import die_with_parent, lower_memory_limit

    die_with_parent(parent)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        lower_memory_limit(memory_limit)
        connection.send(("ok", asdict(describe_in_process(path))))
    except ModelError as error:
        connection.send(("model", (str(error), error.line, error.column)))
    except MemoryError:
        connection.send(("model", (f"{path}: reading the program ran out of memory", None, None)))
    except Exception as error:  # a Storm failure we did not foresee: still one line
        lines = str(error).strip().splitlines()
        message = lines[0] if lines else type(error).__name__
        connection.send(("model", (f"{path}: {message}", None, None)))
    finally:
        connection.close()

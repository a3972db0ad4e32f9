"""The factors of an environment: declared in ``environment.toml`` or derived from the model.

A declaration (``[[factors]]``) has ``id``, ``words`` (what the prompt calls it), optional
``neutral`` (the intervened world in words) and either ``constants = {NAME = neutral value}``
(a model factor) or ``variable = "x"`` (a state factor). A model without declarations (a bare
PRISM file, or a folder that declares none) gets one state factor per variable and one model
factor per constant that has a default, neutral value 0 (false for a boolean): the generic
environment's factors.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from explaincheck.core.environments.loader import (
    EnvironmentFolderError,
    parse_constants,
    read_toml,
)
from explaincheck.core.environments.types import Environment
from explaincheck.core.factors.types import MODEL, STATE, Factor
from explaincheck.core.oracle.program import describe_program

_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def declared_factors(environment: Environment) -> tuple[Factor, ...]:
    """The ``[[factors]]`` of the environment's folder (empty without folder or declarations)."""
    if not environment.folder:
        return ()
    data = read_toml(Path(environment.folder))
    raw = data.get("factors", [])
    where = f"{environment.folder}/environment.toml: [[factors]]"
    if not isinstance(raw, list):
        raise EnvironmentFolderError(f"{where} must be an array of tables")
    found = tuple(_factor(entry, where) for entry in raw)
    ids = [f.id for f in found]
    if len(set(ids)) != len(ids):
        raise EnvironmentFolderError(f"{where}: two factors share an id")
    return found


def automatic_factors(environment: Environment, variables: tuple[str, ...]) -> tuple[Factor, ...]:
    """One state factor per variable, one model factor per constant with a default (neutral 0)."""
    program = describe_program(environment.model_path)
    given = parse_constants(environment.constants)
    factors = [
        Factor(id=name, words=f"the state variable {name}", kind=STATE, variable=name)
        for name in variables
    ]
    for constant in program.constants:
        name = constant.name
        if not (constant.defined or name in given):
            continue
        neutral: int | float | bool = (
            False if constant.type == "bool" else 0.0 if constant.type == "double" else 0
        )
        factors.append(
            Factor(
                id=name,
                words=f"the model constant {name}",
                kind=MODEL,
                constants={name: neutral},
                neutral=f"the constant {name} is {str(neutral).lower()}",
            )
        )
    return tuple(factors)


def factors_of(environment: Environment, variables: tuple[str, ...]) -> tuple[Factor, ...]:
    """The declared factors, or the automatic ones when the environment declares none."""
    return declared_factors(environment) or automatic_factors(environment, variables)


def _factor(entry: Any, where: str) -> Factor:
    if not isinstance(entry, dict):
        raise EnvironmentFolderError(f"{where}: each factor must be a table")
    factor_id = entry.get("id")
    if not isinstance(factor_id, str) or not _ID.match(factor_id):
        raise EnvironmentFolderError(f"{where}: factor id {factor_id!r} must be a plain name")
    words = entry.get("words")
    if not isinstance(words, str) or not words.strip():
        raise EnvironmentFolderError(f"{where}: factor {factor_id} needs 'words'")
    constants, variable = entry.get("constants"), entry.get("variable")
    if (constants is None) == (variable is None):
        raise EnvironmentFolderError(
            f"{where}: factor {factor_id} needs exactly one of 'constants' or 'variable'"
        )
    neutral = str(entry.get("neutral", "")).strip()
    if variable is not None:
        if not isinstance(variable, str):
            raise EnvironmentFolderError(f"{where}: factor {factor_id}: 'variable' must be a name")
        return Factor(factor_id, words.strip(), STATE, variable=variable, neutral=neutral)
    if not isinstance(constants, dict) or not constants:
        raise EnvironmentFolderError(f"{where}: factor {factor_id}: 'constants' must be a table")
    for name, value in constants.items():
        if not isinstance(value, int | float | bool):
            raise EnvironmentFolderError(
                f"{where}: factor {factor_id}: constant {name} must be a number or true/false"
            )
    return Factor(factor_id, words.strip(), MODEL, constants=dict(constants), neutral=neutral)

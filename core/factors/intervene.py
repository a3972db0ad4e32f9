"""Compute the oracle of every intervened model once per campaign (isolated child, cached).

Per model factor f: the model with f neutral (necessity) and the model with every other model
factor neutral (sufficiency); plus the model with every model factor neutral (sufficiency of
state factors). Identical interventions are computed once. A constant that the PRISM file itself
defines cannot be overridden, so for such a constant a copy of the file without that definition
is written to the cache folder and the neutral value is passed as a constant.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from explaincheck.core.cache_files import write_atomic
from explaincheck.core.environments.loader import format_constants, parse_constants
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.factors.truth import decided, index, reached_by_all, state_factors
from explaincheck.core.factors.types import MODEL, STATE, Factor, FactorTruth
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.program import describe_program
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.paths import cache_dir

Compute = Callable[[OracleRequest], OracleResult]
Values = Mapping[str, int | float | bool]
_COMMENT = re.compile(r"//[^\n]*")


def intervened_request(base: OracleRequest, neutral: Values) -> OracleRequest:
    """``base`` with the constants ``neutral`` set (a stripped copy of the file if needed)."""
    if not neutral:
        return base
    program = describe_program(base.model_path)
    text = Path(base.model_path).read_text(encoding="utf-8", errors="replace")
    defined = [c for c in program.constants if c.name in neutral and c.defined]
    spans = sorted(
        ((_definition_span(text, c.name), c) for c in defined), key=lambda p: p[0], reverse=True
    )
    path = base.model_path
    if spans:
        for (start, end), constant in spans:
            text = text[:start] + f"const {constant.type} {constant.name};" + text[end:]
        digest = hashlib.sha256(text.encode()).hexdigest()[:24]
        path = str(_model_copy(text, digest))
    values = parse_constants(base.constants)
    values.update(neutral)
    return replace(base, model_path=path, constants=format_constants(values))


def _model_copy(text: str, digest: str) -> Path:
    """The stripped copy, in the cache, or in a temporary folder when the cache is read-only
    or full (the copy is needed, the cache is not)."""
    copy = cache_dir() / "factors" / f"{digest}.prism"
    if copy.is_file() or write_atomic(copy, lambda stream: stream.write(text)):
        return copy
    fallback = Path(tempfile.gettempdir()) / f"explaincheck-factors-{os.getuid()}" / copy.name
    if fallback.is_file() or write_atomic(fallback, lambda stream: stream.write(text)):
        return fallback
    raise ExplaincheckError(
        f"cannot write the model copy {copy.name} for a why-question: no writable folder"
    )


def _definition_span(text: str, name: str) -> tuple[int, int]:
    """Where ``const [type] name = ...;`` stands in the text (comments blanked). Which constants
    are defined comes from Storm's parser (``describe_program``); it gives no source positions,
    and the copy must differ from the file only in that declaration."""
    blanked = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)
    pattern = rf"\bconst\s+(?:(?:int|double|bool)\s+)?{re.escape(name)}\s*=\s*[^;]+;"
    match = re.search(pattern, blanked)
    if match is None:
        raise ExplaincheckError(f"{name}: cannot find the definition of this constant to set it")
    return match.span()


def neutral_values(factors: tuple[Factor, ...]) -> dict[str, int | float | bool]:
    values: dict[str, int | float | bool] = {}
    for factor in factors:
        values.update(factor.constants)
    return values


def compute_factor_truth(
    factors: tuple[Factor, ...],
    factual: OracleResult,
    base: OracleRequest,
    compute: Compute | None = None,
) -> FactorTruth:
    """The factor truth of ``factual`` (the oracle of ``base``). A model factor whose
    intervened model cannot be checked, or a state factor naming no variable of the model, is
    dropped with its reason rather than failing the campaign."""
    if compute is None:
        compute = compute_oracle
    dropped: dict[str, str] = {}
    cache: dict[str, OracleResult] = {}
    hashes: dict[str, str] = {}

    def oracle_with(name: str, values: Values) -> OracleResult:
        request = intervened_request(base, values)
        key = f"{request.model_path}|{request.constants}"
        if key not in cache:
            cache[key] = compute(request)
        hashes[name] = cache[key].model.content_hash
        return cache[key]

    kept: list[Factor] = []
    necessity: dict[str, OracleResult] = {}
    for factor in factors:
        if factor.kind == STATE:
            if factor.variable not in factual.model.variables:
                dropped[factor.id] = f"the model has no variable {factor.variable!r}"
                continue
            kept.append(factor)
            continue
        try:
            necessity[factor.id] = oracle_with(f"{factor.id}: neutral", factor.constants)
        except ExplaincheckError as error:
            dropped[factor.id] = f"the intervened model cannot be checked: {error}"
            continue
        kept.append(factor)
    model_factors = tuple(f for f in kept if f.kind == MODEL)
    sufficiency: dict[str, OracleResult] = {}
    try:
        for factor in model_factors:
            others = tuple(f for f in model_factors if f.id != factor.id)
            sufficiency[factor.id] = oracle_with(
                f"{factor.id}: others neutral", neutral_values(others)
            )
        all_neutral = oracle_with("all neutral", neutral_values(model_factors))
    except ExplaincheckError as error:
        raise ExplaincheckError(
            f"the factors' sufficiency models cannot be checked: {error}"
        ) from None
    tables = {key: index(o) for key, o in necessity.items()}
    kept_tables = {key: index(o) for key, o in sufficiency.items()}
    neutral_table = index(all_neutral)
    final = tuple(kept)
    states = {}
    unreachable = 0
    every = [*tables.values(), *kept_tables.values(), neutral_table]
    for state in factual.states:
        found = state_factors(state, final, factual, tables, kept_tables, neutral_table)
        if found is not None:
            states[state.id] = found
        elif decided(state) and not reached_by_all(state, every):
            unreachable += 1
    return FactorTruth(final, states, hashes, dropped, unreachable)


def base_request(oracle: OracleResult) -> OracleRequest:
    """The request ``oracle`` answers (its file, constants and labels)."""
    model = oracle.model
    return OracleRequest(
        model.path,
        constants=model.constants,
        goal_label=model.goal_label,
        unsafe_label=model.unsafe_label,
    )

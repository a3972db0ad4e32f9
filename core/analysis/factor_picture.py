"""What the factor panel of the GUI shows for one ``factors`` case, as plain data (no Qt).

Per factor: whether the answer cited it (and where), whether it is necessary and sufficient at
the case's state (from the stored expected answer, so the panel shows what was graded), and
whether the LLM's own decision changed when the behavioural check asked it again (None: that
run was not asked). Per selected factor: the Q values at the case's state under the
intervention, and the states where the intervention changes A* (highlighted on the graph).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explaincheck.core.factors.truth import alternatives, probe_alternative, valuation_key
from explaincheck.core.factors.types import MODEL, Factor
from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.taxonomy.base import PRIORITIZED, TestCase
from explaincheck.core.taxonomy.factor_probes import BASELINE
from explaincheck.core.taxonomy.registry import category


@dataclass(frozen=True)
class FactorMark:
    """One row of the panel. ``cited``: 1-based position in the answer, None when not cited
    (or no answer); ``changed``: the LLM's decision changed under the intervention, None when
    the behavioural check did not ask (or got no readable reply)."""

    id: str
    words: str
    kind: str
    cited: int | None
    necessary: bool
    sufficient: bool
    strength: float
    best_after: tuple[str, ...]
    changed: bool | None
    necessity: float | None = None  # graded necessity (None in results stored before it)
    sufficiency: float | None = None  # graded sufficiency (likewise)


@dataclass(frozen=True)
class FactorPicture:
    """The panel's rows for one case; ``asked`` says whether a behavioural run recorded it."""

    state: int
    marks: tuple[FactorMark, ...]
    asked: bool

    def mark(self, factor_id: str) -> FactorMark:
        for found in self.marks:
            if found.id == factor_id:
                return found
        raise KeyError(factor_id)


def behaviour_changes(actions: Mapping[str, str | None]) -> dict[str, bool | None]:
    """probe -> action of the behavioural check -> factor -> whether the decision changed
    (None without a baseline or a readable answer for that factor)."""
    baseline = actions.get(BASELINE)
    return {
        probe: None if baseline is None or action is None else action != baseline
        for probe, action in actions.items()
        if probe != BASELINE
    }


def case_picture(
    row: Mapping[str, Any],
    factors: tuple[Factor, ...],
    actions: Mapping[str, str | None] | None = None,
) -> FactorPicture:
    """The marks of a stored ``factors`` execution ``row`` (its expected answer holds the
    truth, its answer the citations); ``actions`` = the behavioural probes' answers (empty or
    None: not asked). Factors absent from the expected answer (dropped) are left out."""
    expected = row.get("expected") or {}
    answer = row.get("answer") or {}
    cited = list(answer.get("factors") or []) if isinstance(answer, dict) else []
    strength = expected.get("strength") or {}
    necessary = set(expected.get("necessary") or [])
    sufficient = set(expected.get("sufficient") or [])
    best_after = expected.get("best_after") or {}
    changes = behaviour_changes(actions or {})
    by_id = {f.id: f for f in factors}
    marks = []
    for factor_id, value in strength.items():
        factor = by_id.get(factor_id)
        marks.append(
            FactorMark(
                id=factor_id,
                words=factor.words if factor else "",
                kind=factor.kind if factor else "",
                cited=cited.index(factor_id) + 1 if factor_id in cited else None,
                necessary=factor_id in necessary,
                sufficient=factor_id in sufficient,
                strength=float(value),
                best_after=tuple(best_after.get(factor_id) or ()),
                changed=changes.get(factor_id),
                necessity=_graded(expected, "necessity", factor_id),
                sufficiency=_graded(expected, "sufficiency", factor_id),
            )
        )
    states = list(row.get("states") or [0])
    return FactorPicture(int(states[0]), tuple(marks), bool(actions))


def _graded(expected: Mapping[str, Any], criterion: str, factor_id: str) -> float | None:
    found = (expected.get(criterion) or {}).get(factor_id)
    return None if found is None else float(found)


def read_behaviour(db_path: str | Path, row: Mapping[str, Any]) -> dict[str, str | None]:
    """The behavioural probes stored for the execution ``row`` (probe -> action); empty when
    the database has no ``factor_behaviour`` table (no ``--behavioural`` run). Rows of the
    ``results --json`` shape carry no exec_key: the execution is found by its LLM, case,
    repeat and prompt (one execution each). Read-only."""
    path = Path(db_path)
    if not path.exists():
        return {}
    if row.get("exec_key"):
        where, values = "b.exec_key = ?", [row["exec_key"]]
    else:
        where = "e.case_key = ? AND e.repeat = ? AND e.prompt = ?"
        values = [row.get("case_key"), row.get("repeat"), row.get("prompt")]
    query = (
        "SELECT b.probe, b.action FROM factor_behaviour b"
        " JOIN executions e ON e.exec_key = b.exec_key"
        f" WHERE b.llm = ? AND e.llm = b.llm AND {where}"
    )
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return dict(connection.execute(query, [row.get("llm"), *values]).fetchall())
    except sqlite3.OperationalError:  # no such table: the check was never run on this file
        return {}
    finally:
        connection.close()


def _comparable(state: StateFacts, other: StateFacts) -> bool:
    return set(other.q) == set(state.q) and len(state.q) >= 2


def changed_states(factual: OracleResult, intervened: OracleResult) -> tuple[int, ...]:
    """Factual state ids where the intervened model (matched by valuation, same actions) has
    another A* (as a set): where a model factor is necessary."""
    table = {valuation_key(s): s for s in intervened.states}
    found = []
    for state in factual.states:
        other = table.get(valuation_key(state))
        if other is not None and _comparable(state, other) and set(other.best) != set(state.best):
            found.append(state.id)
    return tuple(found)


def variable_changed_states(factual: OracleResult, variable: str) -> tuple[int, ...]:
    """State ids where changing ``variable`` alone (to a reachable state with the same
    actions) changes A*: where a state factor is necessary."""
    found = []
    for state in factual.states:
        if len(state.q) < 2:
            continue
        for other in alternatives(state, variable, factual):
            if _comparable(state, other) and set(other.best) != set(state.best):
                found.append(state.id)
                break
    return tuple(found)


def alternative_state(factual: OracleResult, state: StateFacts, variable: str) -> StateFacts | None:
    """The alternative a state factor is shown with: the one the behavioural check asks about
    (``truth.probe_alternative``)."""
    return probe_alternative(state, variable, factual)


@dataclass(frozen=True)
class Intervention:
    """One factor's intervention as the panel shows it: ``after`` = the case's state under it
    (for a state factor: the alternative state), ``changed`` = where A* changes."""

    factor: str
    before: StateFacts
    after: StateFacts | None
    changed: tuple[int, ...]
    note: str


def intervention(
    factor: Factor, factual: OracleResult, state_id: int, intervened: OracleResult | None
) -> Intervention:
    """The picture of ``factor`` at ``state_id``; ``intervened`` = the oracle of the model with
    the factor neutral (model factors only)."""
    state = factual.state(state_id)
    if factor.kind == MODEL:
        if intervened is None:
            raise ValueError(f"{factor.id} is a model factor: its intervened oracle is needed")
        table = {valuation_key(s): s for s in intervened.states}
        after = table.get(valuation_key(state))
        settings = ", ".join(f"{k} = {v}" for k, v in factor.constants.items())
        note = f"with {settings}" + ("" if after else " (this state is not reachable)")
        return Intervention(factor.id, state, after, changed_states(factual, intervened), note)
    variable = factor.variable or ""
    after = alternative_state(factual, state, variable)
    if after is None:
        note = f"no reachable state differs only in {variable}"
    else:
        note = f"state {after.id}: {variable} = {after.valuation.get(variable)}"
    return Intervention(factor.id, state, after, variable_changed_states(factual, variable), note)


def lesson_row(
    states: tuple[int, ...], oracle: OracleResult, stored: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A row for the panel from a Teach case: the stored execution of the chosen LLM when
    there is one (its answer gives the citations), else the truth alone (``oracle`` must carry
    the factor truth)."""
    if stored is not None and stored.get("expected"):
        return dict(stored)

    case = TestCase("factors", tuple(states), 0.0, PRIORITIZED, 0)
    return {
        "category": "factors",
        "states": list(states),
        "expected": category("factors").expected(case, oracle),
        "answer": None,
    }

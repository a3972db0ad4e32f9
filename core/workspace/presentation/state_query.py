"""Which state a "Find state" query names: conditions on the state variables (``x=3, y=5``,
``x=3 & y=5``), a state id, or a label. Qt-free: the graph's search runs it on a worker
thread, since it reads the whole model."""

from __future__ import annotations

from collections.abc import Mapping

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.oracle.valuation_search import (
    looks_like_valuation,
    matching_states,
    parse_query,
)


def find_state(oracle: OracleResult, query: str, names: Mapping[str, str]) -> int | None:
    """The first matching state's id, None when none matches; ``names``: the environment's
    variable names (``x`` for "column"). Raises ValuationQueryError (one line) when
    conditions cannot be read."""
    query = query.strip()
    if query.isdigit():
        number = int(query)
        return number if number < len(oracle.states) else None
    if looks_like_valuation(query):
        variables = list(oracle.model.variables) or (
            list(oracle.states[0].valuation) if oracle.states else []
        )
        conditions = parse_query(query, variables, names)
        found = matching_states(oracle.states, conditions, limit=1)
        return found[0] if found else None
    for state in oracle.states:
        if query in state.labels:
            return state.id
    return None

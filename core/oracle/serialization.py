"""Oracle results as JSON: the ``oracle --json`` contract (docs/method.md §1) and the cache.

JSON only (never pickle), so a shared cache or results file cannot run code when read; large
(columnar) results travel as numpy arrays, stored by ``cache.py`` as ``.npz`` read without pickle.
The columnar modules (numpy) are imported only for a columnar result.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, fields, replace
from typing import TYPE_CHECKING, Any, TextIO, cast

from explaincheck.core import json_output
from explaincheck.core.oracle.do_nothing import do_nothing_summary
from explaincheck.core.oracle.property import Property
from explaincheck.core.oracle.types import Certificate, ModelSummary, OracleResult, StateFacts

if TYPE_CHECKING:
    from explaincheck.core.oracle.columnar import ColumnarStates

CACHE_FORMAT = 3  # 2: states carry successors_exact; 3: the certificate and intervals


def to_contract(result: OracleResult) -> dict[str, Any]:
    """The object printed by ``explaincheck oracle --json``. A large result whose centrality
    was not asked for prints ``"centrality": null`` per state, and ``centrality_method`` says
    so; computed (or cached) scores are printed with how they were obtained."""
    states = contract_states(result)  # first: it decides what centrality_method says
    return {"model": contract_model(result), "states": list(states)}


def write_contract(result: OracleResult, out: TextIO, chunk: int = 4096) -> None:
    """``json.dumps(to_contract(result))`` written a chunk of states at a time, the same text:
    at 10^6 states the whole list of dicts and its text took gigabytes in one go. A columnar
    result's states are written from its columns (``contract_text``), a block of states at a
    time, without their facts."""
    texts: Iterator[str]
    table = cast("ColumnarStates", result.states) if result.columnar else None
    if table is not None and table.written_from_columns:
        from explaincheck.core.oracle.contract_text import state_texts

        texts = state_texts(table, table.centrality_computed)
    else:
        states = (json_output.dumps(state) for state in contract_states(result))
        texts = (", ".join(batch) for batch in _batches(states, chunk))
    out.write('{"model": ' + json_output.dumps(contract_model(result)) + ', "states": [')
    first = True
    for text in texts:
        if text:
            out.write(text if first else ", " + text)
            first = False
    out.write("]}\n")


def _batches(texts: Iterator[str], size: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for text in texts:
        batch.append(text)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def contract_model(result: OracleResult) -> dict[str, Any]:
    """The ``model`` object of the contract."""
    model = result.model
    return {
        "path": model.path,
        "states": model.states,
        "choices": model.choices,
        "transitions": model.transitions,
        "initial": model.initial,
        "constants": model.constants,
        "goal": model.goal_label,
        "unsafe": model.unsafe_label,
        "method": result.method,
        "tie_tolerance": result.tie_tolerance,
        "danger": result.has_danger,
        "bottlenecks": list(result.bottlenecks),
        "dead_ends": len(result.dead_ends),
        "warnings": list(result.warnings),
        "seconds": round(result.seconds, 3),
        "values_method": result.values_method,
        "centrality_method": result.centrality_described,
        "do_nothing_states": do_nothing_summary(result).states,
        "certificate": _certificate(result),
        "property": result.prop.to_json(),
    }


def contract_states(result: OracleResult) -> Iterator[dict[str, Any]]:
    """The contract's state objects, one at a time (nothing kept)."""
    states: Iterable[StateFacts] = result.states
    pending = result.columnar and not cast("ColumnarStates", states).centrality_computed
    if pending:
        states = cast("ColumnarStates", states).without_centrality()
    return (_contract_state(s, pending) for s in states)


def _contract_state(s: StateFacts, pending: bool) -> dict[str, Any]:
    infinite_q = [a for a, q in s.q.items() if math.isinf(q)]
    return {
        "id": s.id,
        "valuation": s.valuation,
        "labels": list(s.labels),
        "V": None if s.infinite else s.value,
        "D": s.danger,
        "Q": {a: None if math.isinf(q) else q for a, q in s.q.items()} if infinite_q else s.q,
        "best": list(s.best),
        "worst": list(s.worst),
        "do_nothing": list(s.do_nothing),
        "optimal_action": s.optimal_action,
        "dead_end": s.dead_end,
        "bottleneck": s.bottleneck,
        "centrality": None if pending else s.centrality,
        **({"V_exact": s.value_exact} if s.value_exact is not None else {}),
        **({"V_interval": list(s.value_interval)} if s.value_interval else {}),
        **({"D_interval": list(s.danger_interval)} if s.danger_interval else {}),
        # an infinite expected reward (the target is not reached for sure): V and Q are null,
        # strict JSON has no infinity, and these say which nulls are infinite
        **({"V_infinite": True} if s.infinite else {}),
        **({"Q_infinite": infinite_q} if infinite_q else {}),
        **({"R": s.rewards} if s.rewards else {}),
    }


def _certificate(result: OracleResult) -> dict[str, Any]:
    """``{kind, method, max_width}``; an older cache entry of the exact method is exact."""
    found = result.certificate
    if found is None:
        exact = result.method == "exact"
        found = Certificate("exact" if exact else "unstated", result.values_method, 0.0)
    return {"kind": found.kind, "method": found.method, "max_width": found.max_width}


def to_cache(result: OracleResult) -> dict[str, Any]:
    """The result as plain data: JSON-friendly, except that a columnar result keeps its states
    as numpy arrays under ``columns`` (for the child's pipe and the ``.npz`` cache)."""
    if result.columnar:
        data = asdict(replace(result, states=(), attachments={}))
        data["columns"] = cast("ColumnarStates", result.states).to_arrays()
    else:
        data = asdict(replace(result, attachments={}))
    data.pop("phases", None)
    data.pop("attachments", None)  # a category's facts are its own, never the oracle's cache
    data["format"] = CACHE_FORMAT
    return data


def from_cache(data: dict[str, Any]) -> OracleResult:
    if data.get("format") != CACHE_FORMAT:
        raise ValueError("oracle cache entry has another format")
    model = ModelSummary(
        **{f.name: _model_field(data["model"], f.name) for f in fields(ModelSummary)}
    )
    states: Sequence[StateFacts]
    if "columns" in data:
        from explaincheck.core.oracle.columnar import ColumnarStates

        states = ColumnarStates.from_arrays(data["columns"])
    else:
        states = tuple(_state_from(s) for s in data["states"])
    return OracleResult(
        model=model,
        states=states,
        method=data["method"],
        tie_tolerance=data["tie_tolerance"],
        has_danger=data["has_danger"],
        warnings=tuple(data["warnings"]),
        seconds=0.0,
        from_cache=True,
        values_method=data.get("values_method", ""),
        centrality_method=data.get("centrality_method", "exact (Brandes)"),
        certificate=Certificate(**data["certificate"]) if data.get("certificate") else None,
    )


def _model_field(data: dict[str, Any], name: str) -> Any:
    if name == "property":  # absent from entries written before properties: Pmax [F goal]
        found = data.get(name)
        return Property.from_stored(found) if found else None
    return _tuple_if_list(data[name])


def _tuple_if_list(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _state_from(data: dict[str, Any]) -> StateFacts:
    return StateFacts(
        id=data["id"],
        valuation=data["valuation"],
        labels=tuple(data["labels"]),
        value=data["value"],
        danger=data["danger"],
        q=data["q"],
        best=tuple(data["best"]),
        worst=tuple(data["worst"]),
        action_order=tuple(tuple(group) for group in data["action_order"]),
        optimal_action=data["optimal_action"],
        dead_end=data["dead_end"],
        bottleneck=data["bottleneck"],
        centrality=data["centrality"],
        is_goal=data["is_goal"],
        is_unsafe=data["is_unsafe"],
        is_initial=data["is_initial"],
        successors={a: {int(t): p for t, p in d.items()} for a, d in data["successors"].items()},
        value_exact=data["value_exact"],
        danger_exact=data["danger_exact"],
        q_exact=data["q_exact"],
        successors_exact={
            a: {int(t): p for t, p in d.items()}
            for a, d in data.get("successors_exact", {}).items()
        },
        value_interval=_pair(data.get("value_interval")),
        danger_interval=_pair(data.get("danger_interval")),
        rewards=data.get("rewards") or {},
        rewards_exact=data.get("rewards_exact") or {},
    )


def _pair(value: Any) -> tuple[float, float] | None:
    return None if value is None else (float(value[0]), float(value[1]))

"""The ``oracle --json`` state objects of a columnar result as JSON text, straight from its
columns (issue 33.11).

``serialization.write_contract`` used to make every state's ``StateFacts`` and hand its dict to
``json.dumps``: 25 µs a state, 25 s at 10^6 states. Here each state's text is put together from
columns converted once (numbers through ``float.__repr__``, which is what ``json`` writes for a
finite float; names and label sets encoded once each), with the same tie groups
(``columnar.group_actions``) and the same key order, so the text is the one ``json.dumps`` gives
(pinned by ``tests/core/oracle/test_contract_text.py``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import numpy as np

from explaincheck.core.oracle.columnar import ColumnarStates


def number(x: float) -> str:
    """A float as ``json`` writes it."""
    return float.__repr__(x) if math.isfinite(x) else json.dumps(x)


def _column_texts(column: np.ndarray) -> list[str]:
    """A valuation column as JSON texts, one per state."""
    if column.dtype == bool:
        return ["true" if v else "false" for v in column.tolist()]
    if np.issubdtype(column.dtype, np.integer):
        return list(map(str, column.tolist()))
    if np.issubdtype(column.dtype, np.floating):
        return list(map(number, column.tolist()))
    return [json.dumps(v) for v in column.tolist()]


def _names(names: list[str]) -> str:
    return "[" + ", ".join(names) + "]"


BLOCK = 1 << 16  # states whose columns are converted to text at a time (bounds the memory)


def state_texts(states: ColumnarStates, centrality: bool) -> Iterator[str]:
    """Each state's contract object as text, in state order; ``centrality``: print the scores
    (else null, as for a result whose centrality was not asked for)."""
    names = [json.dumps(name) for name in states.action_names]
    labels = states.label_tuples()
    label_text = {found: _names([json.dumps(x) for x in found]) for found in set(labels)}
    scores = states.centrality_scores() if centrality else None
    for low in range(0, len(states), BLOCK):
        high = min(low + BLOCK, len(states))
        yield from _block(states, low, high, names, labels, label_text, scores)


def _block(
    states: ColumnarStates,
    low: int,
    high: int,
    names: list[str],
    labels: list[tuple[str, ...]],
    label_text: dict[tuple[str, ...], str],
    scores: np.ndarray | None,
) -> Iterator[str]:
    """The texts of states ``low`` to ``high`` - 1."""
    first_row = states.first_row[low : high + 1].tolist()
    base = first_row[0]
    rows = slice(base, first_row[-1])
    codes = states.action_code[rows].tolist()
    q = list(map(number, states.q[rows].tolist()))
    best_row = states.best_row[rows].tolist()
    worst_row = states.worst_row[rows].tolist()
    do_nothing = states.do_nothing_row[rows].tolist()
    scheduler = states.scheduler[low:high].tolist()
    part = slice(low, high)
    valuation_parts = [
        (json.dumps(name) + ": ", _column_texts(column[part]))
        for name, column in zip(states.variables, states.valuation_columns, strict=True)
    ]
    values = list(map(number, states.value[part].tolist()))
    dead = states.dead_end[part].tolist()
    dangers = None if states.danger is None else list(map(number, states.danger[part].tolist()))
    bottleneck = states.bottleneck[part].tolist()
    centrality = None if scores is None else list(map(number, scores[part].tolist()))
    exact = None
    if states.value_exact is not None:
        exact = [json.dumps(str(text)) for text in states.value_exact[part].tolist()]
    value_interval = _intervals(states.value_low, states.value_high, part)
    danger_interval = _intervals(states.danger_low, states.danger_high, part)

    for k in range(high - low):
        start, end = first_row[k] - base, first_row[k + 1] - base
        labelled = [r for r in range(start, end) if codes[r] >= 0]
        q_text = ", ".join(f"{names[codes[r]]}: {q[r]}" for r in labelled)
        best = ", ".join(names[codes[r]] for r in labelled if best_row[r])
        worst = ", ".join(names[codes[r]] for r in labelled if worst_row[r])
        idle = ", ".join(names[codes[r]] for r in labelled if do_nothing[r])
        chosen = codes[start + scheduler[k]] if labelled else -1
        optimal = names[chosen] if chosen >= 0 else "null"
        valuation = ", ".join(key + texts[k] for key, texts in valuation_parts)
        parts = [
            f'{{"id": {low + k}, "valuation": {{{valuation}}}',
            f', "labels": {label_text[labels[low + k]]}',
            f', "V": {values[k]}, "D": {dangers[k] if dangers is not None else "null"}',
            f', "Q": {{{q_text}}}, "best": [{best}], "worst": [{worst}]',
            f', "do_nothing": [{idle}], "optimal_action": {optimal}',
            f', "dead_end": {"true" if dead[k] else "false"}',
            f', "bottleneck": {"true" if bottleneck[k] else "false"}',
            f', "centrality": {centrality[k] if centrality is not None else "null"}',
        ]
        if exact is not None:
            parts.append(f', "V_exact": {exact[k]}')
        if value_interval is not None:
            parts.append(f', "V_interval": {value_interval[k]}')
        if danger_interval is not None:
            parts.append(f', "D_interval": {danger_interval[k]}')
        parts.append("}")
        yield "".join(parts)


def _intervals(low: np.ndarray | None, high: np.ndarray | None, part: slice) -> list[str] | None:
    if low is None or high is None:
        return None
    pairs = zip(low[part].tolist(), high[part].tolist(), strict=True)
    return [f"[{number(a)}, {number(b)}]" for a, b in pairs]

"""The ``oracle --json`` state objects of a columnar result as JSON text, straight from its
columns (issue 33.11).

``serialization.write_contract`` used to make every state's ``StateFacts`` and hand its dict to
``json.dumps``: 25 µs a state, 25 s at 10^6 states. Here each state's text is put together from
columns converted once (a column of numbers by orjson in one call, which writes the digits
``float.__repr__`` writes, and so ``json``; names and label sets encoded once each), with the same
tie groups
(``columnar.group_actions``) and the same key order, so the text is the one ``json.dumps`` gives
(pinned by ``tests/core/oracle/test_contract_text.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from itertools import chain, repeat

import numpy as np
import orjson

from explaincheck.core.oracle.columnar import ColumnarStates
from explaincheck.core.oracle.page_faults import held_arenas


def numbers(column: np.ndarray) -> list[str]:
    """A float column as ``json`` writes each number. orjson writes the whole column in one C
    call, four times as fast as ``float.__repr__`` per number (3 s of the 10^6-state
    ``--json``), with the same shortest digits. Its text differs from ``repr``'s only from
    1e-9 to 1e-4 (orjson writes ``0.00001`` and ``4.5e-6`` for ``1e-05`` and ``4.5e-06``: no
    exponent, or one of a single digit) and from 1e16 up; there ``float.__repr__`` writes the
    number. Below 1e-9 both write the same two- or three-digit exponent, and orjson's text is
    kept: ``repr`` takes 1.3 µs for such a number, and the 10^6-state grid's values fall to
    1e-300 far from the goal (its text took 2.3 s instead of 2.55 s, with 563,000 numbers below
    1e-4). A number that is not finite is strict JSON's null
    (orjson's own text), as ``json_output`` writes every ``--json`` (``json`` would write NaN
    or Infinity)."""
    values = np.ascontiguousarray(column, dtype=np.float64)
    if not len(values):
        return []
    texts = _split(values)
    magnitude = np.abs(values)
    plain = ((magnitude >= 1e-4) & (magnitude < 1e16)) | (magnitude < 1e-9)
    # orjson already writes null where a number is not finite; ``repr`` through one C-level
    # ``map``: a Python call per number took 0.6 s of the 10^6-state grid's text under the
    # profiler (563,000 values below 1e-4)
    odd = np.flatnonzero(~plain & np.isfinite(values))
    for index, text in zip(odd.tolist(), map(float.__repr__, values[odd].tolist()), strict=True):
        texts[index] = text
    return texts


def _split(values: np.ndarray) -> list[str]:
    """orjson's text of a numeric column, one string per entry."""
    return orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].decode().split(",")


def _column_texts(column: np.ndarray) -> list[str]:
    """A valuation column as JSON texts, one per state."""
    if column.dtype == bool:
        return _booleans(column)
    if np.issubdtype(column.dtype, np.integer):  # orjson's integers are ``str``'s
        return _split(np.ascontiguousarray(column, dtype=np.int64)) if len(column) else []
    if np.issubdtype(column.dtype, np.floating):
        return numbers(column)
    return [json.dumps(v) for v in column.tolist()]


def _booleans(column: np.ndarray) -> list[str]:
    return np.where(column, "true", "false").tolist()


def _names(names: list[str]) -> str:
    return "[" + ", ".join(names) + "]"


BLOCK = 2048  # states converted to text at a time: small blocks reuse the allocator's memory
# (65,536 at a time made 78,000 page faults at 10^5 states, a quarter of the writing's CPU)
HELD_MEGABYTES = 16  # of Python's arenas kept mapped while the text is written: a block's
# strings take about 4 MB (``page_faults.held_arenas``); making them costs about 10 ms, which
# the faults saved repay from some 17 blocks on: held, the drifting grids' text took 10 ms more
# at 10^4 states (5 blocks) and 15 ms less at 10^5 (48 blocks)
HELD_FROM = 32 * BLOCK  # states
# between two states' texts in ``_per_state``'s one joined string: JSON text escapes every
# control character, so none of the texts holds it (numpy would drop a NUL from its strings)
_BETWEEN = "\x1f"


def state_texts(states: ColumnarStates, centrality: bool) -> Iterator[str]:
    """The states' contract objects as text, in state order, a block of states at a time
    (their texts joined by ", "); ``centrality``: print the scores (else null, as for a result
    whose centrality was not asked for)."""
    names = np.array([json.dumps(name) for name in states.action_names] + ["null"], dtype=object)
    keys = np.array([name + ": " for name in names], dtype=object)  # Q's keys, colon included
    labels = states.label_tuples()
    label_text = {found: _names([json.dumps(x) for x in found]) for found in set(labels)}
    scores = states.centrality_scores() if centrality else None
    # a block's strings reuse these arenas' pages
    held = held_arenas(HELD_MEGABYTES) if len(states) >= HELD_FROM else []
    for low in range(0, len(states), BLOCK):
        high = min(low + BLOCK, len(states))
        yield ", ".join(_block(states, low, high, names, keys, labels, label_text, scores))
    del held


def _per_state(
    texts: list[str], state: np.ndarray, states: int, keys: list[str] | None = None
) -> list[str]:
    """Each state's ``texts`` (given per row, in row order; ``state``: the row's state, in
    0..states-1, ascending) joined by ", ", each after its ``keys`` entry if given (Q's
    ``"name": ``), "" for a state without any: one C-level join of all of them and one split,
    instead of a join per state (and a concatenation per key: 0.2 s at 10^6 states)."""
    out = np.full(states, "", dtype=object)
    if not texts:
        return out.tolist()
    last = np.ones(len(state), dtype=bool)
    last[:-1] = state[1:] != state[:-1]
    separators = np.where(last, _BETWEEN, ", ").tolist()
    parts = (texts, separators) if keys is None else (keys, texts, separators)
    joined = "".join(chain.from_iterable(zip(*parts, strict=True)))
    out[state[last]] = joined[: -len(_BETWEEN)].split(_BETWEEN)
    return out.tolist()


def _block(
    states: ColumnarStates,
    low: int,
    high: int,
    names: np.ndarray,
    keys: np.ndarray,
    labels: list[tuple[str, ...]],
    label_text: dict[tuple[str, ...], str],
    scores: np.ndarray | None,
) -> Iterator[str]:
    """The texts of states ``low`` to ``high`` - 1, assembled column by column."""
    count = high - low
    first = int(states.first_row[low])
    bounds = states.first_row[low : high + 1] - first
    rows = slice(first, int(states.first_row[high]))
    codes = states.action_code[rows]
    row_state = np.repeat(np.arange(count), np.diff(bounds))
    labelled = codes >= 0
    kept = np.flatnonzero(labelled)
    kept_state = row_state[kept]
    kept_names = names[codes[kept]]
    q_texts = numbers(states.q[rows][kept])
    q = _per_state(q_texts, kept_state, count, keys[codes[kept]].tolist())
    groups = []
    for flags in (states.best_row, states.worst_row, states.do_nothing_row):
        chosen = flags[rows][kept]
        groups.append(_per_state(kept_names[chosen].tolist(), kept_state[chosen], count))
    best, worst, idle = groups
    has_labelled = np.add.reduceat(labelled, bounds[:-1]) > 0 if len(codes) else labelled
    if len(has_labelled) < count:  # states without rows (none in a built model)
        has_labelled = np.zeros(count, dtype=bool)
    chosen_row = np.minimum(bounds[:-1] + states.scheduler[low:high], max(len(codes) - 1, 0))
    chosen_code = np.where(has_labelled, codes[chosen_row] if len(codes) else -1, -1)
    optimal = names[chosen_code].tolist()  # -1: the "null" at the end of ``names``
    part = slice(low, high)
    # each state's text is one "".join of its pieces in order, columns and fixed words zipped
    # in C (``map``): a Python f-string per state, with the intervals and valuations joined
    # into strings of their own first, took a fifth more of the text's time
    pieces: list[Iterable[str]] = [repeat('{"id": '), _split(np.arange(low, high))]
    pieces.append(repeat(', "valuation": {'))
    for k, (name, column) in enumerate(
        zip(states.variables, states.valuation_columns, strict=True)
    ):
        pieces += [
            repeat((", " if k else "") + json.dumps(name) + ": "),
            _column_texts(column[part]),
        ]
    dangers = ["null"] * count if states.danger is None else numbers(states.danger[part])
    centrality = ["null"] * count if scores is None else numbers(scores[part])
    pieces += [
        repeat('}, "labels": '), [label_text[found] for found in labels[low:high]],
        repeat(', "V": '), numbers(states.value[part]),
        repeat(', "D": '), dangers,
        repeat(', "Q": {'), q,
        repeat('}, "best": ['), best,
        repeat('], "worst": ['), worst,
        repeat('], "do_nothing": ['), idle,
        repeat('], "optimal_action": '), optimal,
        repeat(', "dead_end": '), _booleans(states.dead_end[part]),
        repeat(', "bottleneck": '), _booleans(states.bottleneck[part]),
        repeat(', "centrality": '), centrality,
    ]  # fmt: skip
    if states.value_exact is not None:
        exact = [json.dumps(str(text)) for text in states.value_exact[part].tolist()]
        pieces += [repeat(', "V_exact": '), exact]
    for key, lower, upper in (
        ("V_interval", states.value_low, states.value_high),
        ("D_interval", states.danger_low, states.danger_high),
    ):
        if lower is not None and upper is not None:
            pieces += [repeat(f', "{key}": ['), numbers(lower[part]), repeat(", ")]
            pieces += [numbers(upper[part]), repeat("]")]
    pieces.append(repeat("}"))
    # the fixed words repeat without end, so zip cannot be strict: the columns are checked here
    if any(len(each) != count for each in pieces if isinstance(each, list)):
        raise ValueError("a column of the states' text is not one entry per state")
    return map("".join, zip(*pieces, strict=False))

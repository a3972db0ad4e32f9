"""The oracle's per-state facts kept as columns (one numpy array per quantity), for large models.

A ``StateFacts`` object per state costs kilobytes (dicts of Q, successors, valuation); at 10^6
states that is gigabytes and minutes. ``ColumnarStates`` holds the same information as flat
arrays and builds the ``StateFacts`` of a state only when it is asked for, through exactly the
derivation of ``compute.derive_state_facts`` (so ``oracle --json`` prints the same object either
way). It is a read-only sequence, so ``result.states[i]``, ``len`` and iteration work unchanged.
``to_arrays``/``from_arrays`` give plain arrays for the child's pipe and the ``.npz`` cache.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from explaincheck.core.oracle.types import StateFacts

VALUATION_PREFIX = "valuation:"


def group_actions(names: list[str], keys: list, tied) -> tuple[tuple[str, ...], ...]:
    """Actions sorted by decreasing value, grouped where values tie (model order within a
    group, so both methods name a tie the same way whatever the round-off)."""
    order = sorted(range(len(names)), key=lambda i: keys[i], reverse=True)
    groups: list[list[str]] = []
    previous = None
    for i in order:
        if previous is not None and tied(keys[previous], keys[i]):
            groups[-1].append(names[i])
        else:
            groups.append([names[i]])
        previous = i
    return tuple(tuple(sorted(group, key=names.index)) for group in groups)


def _python(value):
    """A numpy scalar as the JSON type ``read_structure`` gives (bool, int or float)."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    return float(value)


@dataclass(eq=False)
class ColumnarStates(Sequence):
    """All states' facts as arrays; ``self[i]`` is the ``StateFacts`` of state i."""

    first_row: np.ndarray  # per state, its first choice row; len = states + 1
    row_offsets: np.ndarray  # per row, its first entry; len = rows + 1
    columns: np.ndarray  # successor of each entry
    probabilities: np.ndarray
    action_code: np.ndarray  # per row: index into action_names, -1 unlabelled
    action_names: tuple[str, ...]
    label_names: tuple[str, ...]
    label_bits: np.ndarray  # bool, labels × states
    variables: tuple[str, ...]
    valuation_columns: tuple[np.ndarray, ...]  # parallel to variables
    value: np.ndarray
    danger: np.ndarray | None
    q: np.ndarray  # per row
    scheduler: np.ndarray  # per state: chosen row minus first_row
    bottleneck: np.ndarray  # bool per state
    centrality: np.ndarray
    goal: np.ndarray
    unsafe: np.ndarray
    initial: int
    tie_tolerance: float

    def __len__(self) -> int:
        return len(self.value)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self.facts(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"state {index} out of range")
        return self.facts(index)

    def __iter__(self) -> Iterator[StateFacts]:
        return (self.facts(i) for i in range(len(self)))

    @cached_property
    def bottleneck_ids(self) -> tuple[int, ...]:
        return tuple(np.flatnonzero(self.bottleneck).tolist())

    @cached_property
    def dead_end_ids(self) -> tuple[int, ...]:
        return tuple(np.flatnonzero(self.value == 0.0).tolist())

    def _tied(self, a: float, b: float) -> bool:
        return abs(a - b) <= self.tie_tolerance

    def facts(self, state: int) -> StateFacts:
        start, end = int(self.first_row[state]), int(self.first_row[state + 1])
        codes = self.action_code[start:end].tolist()
        q_rows = self.q[start:end].tolist()
        labelled = [(i, self.action_names[c]) for i, c in enumerate(codes) if c >= 0]
        names = [name for _, name in labelled]
        keys = [q_rows[i] for i, _ in labelled]
        order = group_actions(names, keys, self._tied) if names else ()
        chosen_code = codes[int(self.scheduler[state])] if codes else -1
        successors = {}
        for i, code in enumerate(codes):
            low, high = self.row_offsets[start + i], self.row_offsets[start + i + 1]
            successors[self.action_names[code] if code >= 0 else "(no action)"] = dict(
                zip(
                    self.columns[low:high].tolist(),
                    self.probabilities[low:high].tolist(),
                    strict=True,
                )
            )
        value = float(self.value[state])
        return StateFacts(
            id=state,
            valuation={
                name: _python(column[state])
                for name, column in zip(self.variables, self.valuation_columns, strict=True)
            },
            labels=tuple(
                name for k, name in enumerate(self.label_names) if self.label_bits[k, state]
            ),
            value=value,
            danger=float(self.danger[state]) if self.danger is not None else None,
            q={name: q_rows[i] for i, name in labelled},
            best=order[0] if order else (),
            worst=order[-1] if order else (),
            action_order=order,
            optimal_action=(self.action_names[chosen_code] if chosen_code >= 0 else None)
            if names
            else None,
            dead_end=value == 0.0,
            bottleneck=bool(self.bottleneck[state]),
            centrality=float(self.centrality[state]),
            is_goal=bool(self.goal[state]),
            is_unsafe=bool(self.unsafe[state]),
            is_initial=state == self.initial,
            successors=successors,
        )

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Plain arrays (numbers and unicode only: ``np.load(allow_pickle=False)`` reads them)."""
        arrays = {
            "first_row": self.first_row,
            "row_offsets": self.row_offsets,
            "columns": self.columns,
            "probabilities": self.probabilities,
            "action_code": self.action_code,
            "action_names": np.array(self.action_names, dtype=str),
            "label_names": np.array(self.label_names, dtype=str),
            "label_bits": self.label_bits,
            "variables": np.array(self.variables, dtype=str),
            "value": self.value,
            "q": self.q,
            "scheduler": self.scheduler,
            "bottleneck": self.bottleneck,
            "centrality": self.centrality,
            "goal": self.goal,
            "unsafe": self.unsafe,
            "initial": np.array(self.initial, dtype=np.int64),
            "tie_tolerance": np.array(self.tie_tolerance, dtype=float),
        }
        if self.danger is not None:
            arrays["danger"] = self.danger
        for name, column in zip(self.variables, self.valuation_columns, strict=True):
            arrays[VALUATION_PREFIX + name] = column
        return arrays

    @classmethod
    def from_arrays(cls, arrays) -> ColumnarStates:
        variables = tuple(str(v) for v in arrays["variables"].tolist())
        return cls(
            first_row=arrays["first_row"],
            row_offsets=arrays["row_offsets"],
            columns=arrays["columns"],
            probabilities=arrays["probabilities"],
            action_code=arrays["action_code"],
            action_names=tuple(str(a) for a in arrays["action_names"].tolist()),
            label_names=tuple(str(a) for a in arrays["label_names"].tolist()),
            label_bits=arrays["label_bits"].reshape(
                len(arrays["label_names"]), len(arrays["value"])
            ),
            variables=variables,
            valuation_columns=tuple(arrays[VALUATION_PREFIX + v] for v in variables),
            value=arrays["value"],
            danger=arrays.get("danger"),
            q=arrays["q"],
            scheduler=arrays["scheduler"],
            bottleneck=arrays["bottleneck"],
            centrality=arrays["centrality"],
            goal=arrays["goal"],
            unsafe=arrays["unsafe"],
            initial=int(arrays["initial"]),
            tie_tolerance=float(arrays["tie_tolerance"]),
        )

"""The oracle's per-state facts kept as columns (one numpy array per quantity): the one state
representation of ``compute.py``'s pipeline, for every size.

A ``StateFacts`` object per state costs kilobytes (dicts of Q, successors, valuation); at 10^6
states that is gigabytes and minutes. ``ColumnarStates`` holds the same information as flat
arrays and builds the ``StateFacts`` of a state only when it is asked for, through
``choice_facts`` (the derivation the flawed pictures share, ``flawed.derive_state_facts``). It is
a read-only sequence, so ``result.states[i]``, ``len`` and iteration work unchanged; a small
result is handed on as the tuple of its facts (``materialised``). Under the exact method it
also holds the fractions, as "num/den" text columns. ``to_arrays``/``from_arrays`` give plain
arrays for the child's pipe and the ``.npz`` cache.
"""

from __future__ import annotations

import gc
import math
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, partial
from itertools import pairwise
from typing import Any, TypedDict, cast, overload

import numpy as np

from explaincheck.core.oracle.types import StateFacts

VALUATION_PREFIX = "valuation:"
NO_ACTION = "(no action)"  # the successors' key of an unlabelled choice
# made facts are moved out of the cyclic collector's reach every this many states (``facts``)
FREEZE_EVERY = 4096
LIST_SLICE = 1 << 15  # entries per ``tolist`` call (``_listed``)
# ``ColumnarStates.centrality_method`` until the scores are computed (``centrality_scores``)
NOT_COMPUTED = (
    "not computed (a picture aid, computed on demand for the graph view and the bottleneck "
    "questions; oracle --centrality computes it)"
)


def group_actions(
    names: list[str], keys: Sequence[Any], tied: Callable[[Any, Any], bool]
) -> tuple[tuple[str, ...], ...]:
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


class ChoiceFacts(TypedDict):
    """The ``StateFacts`` fields that come from a state's choices (``choice_facts``)."""

    q: dict[str, float]
    best: tuple[str, ...]
    worst: tuple[str, ...]
    action_order: tuple[tuple[str, ...], ...]
    optimal_action: str | None
    successors: dict[str, dict[int, float]]


def choice_facts(
    actions: Sequence[str | None],
    q: Sequence[float],
    successors: Sequence[dict[int, float]],
    chosen: int,
    tied: Callable[[Any, Any], bool],
    keys: Sequence[Any] | None = None,
) -> ChoiceFacts:
    """A state's Q per labelled action, its tie groups by decreasing value (A* first, A° last),
    the optimal scheduler's action and the successors per action, from its choices in model
    order (``actions[i]``: the label of choice ``i``, None if unlabelled; ``chosen``: the
    scheduler's choice; ``keys``: the values to order by, exact ones where the method is
    exact, else ``q``). One derivation for ``compute.derive_state_facts`` and the columnar
    states, so both name every tie and every action alike."""
    labelled = [i for i, action in enumerate(actions) if action]
    names = [str(actions[i]) for i in labelled]
    ranked = q if keys is None else keys
    order = group_actions(names, [ranked[i] for i in labelled], tied) if names else ()
    return {
        "q": {name: q[i] for i, name in zip(labelled, names, strict=True)},
        "best": order[0] if order else (),
        "worst": order[-1] if order else (),
        "action_order": order,
        "optimal_action": actions[chosen] if names else None,
        "successors": {
            (action or NO_ACTION): row for action, row in zip(actions, successors, strict=True)
        },
    }


def _interval(low: np.ndarray | None, high: np.ndarray | None, i: int) -> tuple | None:
    return None if low is None or high is None else (float(low[i]), float(high[i]))


def _exact_number(text: str) -> Fraction | float:
    """An exact column's text as a number: a fraction, or ``math.inf``."""
    return math.inf if text == INFINITE else Fraction(text)


def _finite_text(text: str) -> str | None:
    """An exact value's text, None where it is infinite (``StateFacts.value_exact``)."""
    return None if text == INFINITE else text


def _equal(a: Any, b: Any) -> bool:
    return bool(a == b)


def _texts(column: np.ndarray) -> list[str]:
    return [str(text) for text in column.tolist()]


def _listed(array: np.ndarray) -> list:
    """``array.tolist()`` in slices: one call on a 10^6-entry column holds the GIL for tens of
    milliseconds, which the GUI thread would wait out while a worker makes the first state."""
    if len(array) <= LIST_SLICE:
        return array.tolist()
    out: list = []
    for start in range(0, len(array), LIST_SLICE):
        out.extend(array[start : start + LIST_SLICE].tolist())
    return out


class _Read(Sequence[Any]):
    """A column read as ``_listed`` would give it, one index or slice at a time: a glance at a
    few states (the summary's) reads them without converting every column, which took 0.5 s
    and 300 MB at 10^6 states. ``text``: each entry as ``str`` (``_texts``)."""

    def __init__(self, array: np.ndarray, *, text: bool = False) -> None:
        self._array = array
        self._text = text

    def __len__(self) -> int:
        return len(self._array)

    def __getitem__(self, index: Any) -> Any:
        found = self._array[index if isinstance(index, slice) else slice(index, index + 1)]
        values = found.tolist()
        if self._text:
            values = [str(value) for value in values]
        return values if isinstance(index, slice) else values[0]


class _LabelsRead(Sequence[tuple[str, ...]]):
    """Each state's labels read from the bit columns one state at a time (``_Read``)."""

    def __init__(self, names: tuple[str, ...], bits: np.ndarray, size: int) -> None:
        self._names, self._bits, self._size = names, bits, size

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, state: Any) -> Any:
        if isinstance(state, slice):
            return [self[i] for i in range(*state.indices(self._size))]
        return tuple(name for k, name in enumerate(self._names) if self._bits[k, state])


@dataclass(frozen=True)
class _Lists:
    """``ColumnarStates``' columns as Python lists (see ``ColumnarStates._lists``), or read
    in place for a glance (``ColumnarStates._glance_lists``)."""

    first_row: Sequence[int]
    row_offsets: Sequence[int]
    columns: Sequence[int]
    probabilities: Sequence[float]
    action_code: Sequence[int]
    q: Sequence[float]
    value: Sequence[float]
    danger: Sequence[float] | None
    scheduler: Sequence[int]
    bottleneck: Sequence[bool]
    goal: Sequence[bool]
    unsafe: Sequence[bool]
    valuations: Sequence[Sequence]
    labels: Sequence[tuple[str, ...]]
    dead_end: Sequence[bool]
    # the exact method's fractions as text (None under the verified method)
    value_exact: Sequence[str] | None
    danger_exact: Sequence[str] | None
    q_exact: Sequence[str] | None
    probabilities_exact: Sequence[str] | None


EXACT_COLUMNS = ("value_exact", "danger_exact", "q_exact", "probabilities_exact")
PROPERTY_COLUMNS = ("rewards", "rewards_exact", "ended")  # a reward property's (``ended``: bool)
INFINITE = "inf"  # an exact column's text of an infinite value (an expected reward)
# columns of bools, kept as bools in the ``.npz``
FACT_COLUMNS = ("dead_end", "best_row", "worst_row", "do_nothing_row")


@dataclass(eq=False)
class ColumnarStates(Sequence[StateFacts]):
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
    centrality: np.ndarray | None  # None until first needed (``centrality_scores``)
    goal: np.ndarray
    unsafe: np.ndarray
    initial: int
    tie_tolerance: float
    # per-state and per-row facts derived once (``choices.py``): V = 0 (exactly, under the
    # exact method), A*, A° and do-nothing rows
    dead_end: np.ndarray
    best_row: np.ndarray
    worst_row: np.ndarray
    do_nothing_row: np.ndarray
    # the bounded certificate's intervals (certificate.py); None under the exact method
    value_low: np.ndarray | None = None
    value_high: np.ndarray | None = None
    danger_low: np.ndarray | None = None
    danger_high: np.ndarray | None = None
    centrality_method: str = NOT_COMPUTED  # how ``centrality`` was obtained (``describe``)
    # the exact method's fractions as "num/den" text: V and D per state, Q per row, the
    # probability of each entry (None under the verified method)
    value_exact: np.ndarray | None = None
    danger_exact: np.ndarray | None = None
    q_exact: np.ndarray | None = None
    probabilities_exact: np.ndarray | None = None
    # a user's property (``property_answers``): whether its best is the largest value (false:
    # Pmin, Rmin), a reward property's rewards per row ("num/den" under the exact method) and
    # the states where its run has ended (their choices collect no reward)
    maximising: bool = True
    rewards: np.ndarray | None = None
    rewards_exact: np.ndarray | None = None
    ended: np.ndarray | None = None
    _unfrozen: int = field(default=0, init=False, repr=False)  # made since the last freeze
    _centrality_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __len__(self) -> int:
        return len(self.value)

    @overload
    def __getitem__(self, index: int) -> StateFacts: ...

    @overload
    def __getitem__(self, index: slice) -> list[StateFacts]: ...

    def __getitem__(self, index: int | slice) -> StateFacts | list[StateFacts]:
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
        return tuple(np.flatnonzero(self.dead_end).tolist())

    @property
    def do_nothing_rows(self) -> np.ndarray:
        """Per choice row, whether it is a labelled action whose every entry leads back to its
        own state (``StateFacts.do_nothing``; ``choices.do_nothing_rows``)."""
        return self.do_nothing_row

    @property
    def written_from_columns(self) -> bool:
        """Whether ``contract_text`` writes these states' JSON from the columns: not where a
        reward property's rewards or an infinite value are (their keys, ``R``, ``V_infinite``,
        ``Q_infinite``, come from each state's facts, ``serialization.contract_states``)."""
        return self.rewards is None and bool(np.isfinite(self.q).all())

    @property
    def exact(self) -> bool:
        """Whether the columns hold the exact method's fractions."""
        return self.value_exact is not None

    def materialised(self) -> tuple[StateFacts, ...]:
        """Every state's facts at once, as a tuple (how a small result is handed on)."""
        return tuple(self._make(i) for i in range(len(self)))

    def role_counts(self) -> dict[str, int]:
        """How many states have each role (``StateFacts.roles``), without making any state."""
        counts = {
            "initial": 1,
            "goal": int(np.count_nonzero(self.goal)),
            "unsafe": int(np.count_nonzero(self.unsafe)),
            "dead_end": int(np.count_nonzero(self.dead_end)),
            "bottleneck": int(np.count_nonzero(self.bottleneck)),
        }
        return {role: count for role, count in counts.items() if count}

    def predecessors(self) -> list[tuple[int, ...]]:
        """Per state, the other states with a transition of positive probability into it
        (ascending), from the transition arrays in one vectorised pass."""
        rows_per_state = np.diff(self.first_row)
        row_state = np.repeat(np.arange(len(self)), rows_per_state)
        entry_state = np.repeat(row_state, np.diff(self.row_offsets))
        keep = (self.probabilities > 0) & (self.columns != entry_state)
        # one int64 key per (target, source) edge, sorted and deduplicated: sorting plain
        # integers is fast and lets other threads run, where ``np.unique(..., axis=0)`` held the
        # GIL for 1.6 s at 10^5 states (and ``np.unique`` of the keys still 0.1 s)
        size = np.int64(len(self))
        keys = np.sort(self.columns[keep].astype(np.int64) * size + entry_state[keep])
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if len(keys) else keys
        targets = keys // size
        bounds = np.searchsorted(targets, np.arange(len(self) + 1))
        sources = (keys - targets * size).tolist()
        edges = bounds.tolist()
        return [tuple(sources[edges[s] : edges[s + 1]]) for s in range(len(self))]

    @property
    def centrality_computed(self) -> bool:
        return self.centrality is not None

    def centrality_scores(self) -> np.ndarray:
        """C_B of every state, computed on first need from the transition arrays (the same
        edges, estimator and seed as the child would have used, so the same scores), and
        ``centrality_method`` then says how."""
        with self._centrality_lock:
            if self.centrality is None:
                from scipy.sparse import csr_matrix

                from explaincheck.core.oracle import centrality
                from explaincheck.core.oracle.arrays import ChoiceArrays

                shape = (len(self.action_code), len(self))
                rows = csr_matrix((self.probabilities, self.columns, self.row_offsets), shape)
                found = centrality.estimate(len(self), *ChoiceArrays(rows, self.first_row).edges)
                self.centrality_method = found.describe()
                self.centrality = np.asarray(found.scores, dtype=float)
            return self.centrality

    @cached_property
    def _centrality_list(self) -> list[float]:
        return _listed(self.centrality_scores())

    def glance(self, state: int) -> StateFacts:
        """The facts of one state, without computing the centrality for it (NaN until it is
        computed) and without keeping them: for a summary that shows no centrality."""
        made = self._made[state]
        if made is not None or self.centrality is not None:
            return self.facts(state)
        lists = self._lists if "_lists" in self.__dict__ else self._glance_lists
        return self._make(state, float("nan"), lists)

    def without_centrality(self) -> Iterator[StateFacts]:
        """Every state's facts with ``centrality`` left at NaN and nothing kept: for
        ``oracle --json``, which prints null rather than pay for a picture aid it was not
        asked for (``serialization.to_contract``)."""
        return (self._make(i, float("nan")) for i in range(len(self)))

    def _tied(self, a: float, b: float) -> bool:
        return a == b or abs(a - b) <= self.tie_tolerance  # == : two infinite Q tie

    @cached_property
    def _lists(self) -> _Lists:
        """The columns as Python lists, converted once: slicing lists and reading Python
        numbers is several times cheaper per state than doing either on numpy arrays."""
        return self._columns_as(_listed, _texts, self.label_tuples())

    @cached_property
    def _glance_lists(self) -> _Lists:
        """The columns read in place (``_Read``): for ``glance`` before ``_lists`` is made."""
        names = self.label_names
        labels = _LabelsRead(names, self.label_bits, len(self)) if names else [()] * len(self)
        return self._columns_as(_Read, partial(_Read, text=True), labels)

    def _columns_as(
        self,
        numbers: Callable[[np.ndarray], Sequence[Any]],
        texts: Callable[[np.ndarray], Sequence[str]],
        labels: Sequence[tuple[str, ...]],
    ) -> _Lists:
        """Every column through ``numbers`` (the exact method's text columns through
        ``texts``), a column that is absent left None: the one list of what ``_make`` reads."""

        def each(column: np.ndarray | None, convert: Callable[[np.ndarray], Any]) -> Any:
            return None if column is None else convert(column)

        return _Lists(
            first_row=numbers(self.first_row),
            row_offsets=numbers(self.row_offsets),
            columns=numbers(self.columns),
            probabilities=numbers(self.probabilities),
            action_code=numbers(self.action_code),
            q=numbers(self.q),
            value=numbers(self.value),
            danger=each(self.danger, numbers),
            scheduler=numbers(self.scheduler),
            bottleneck=numbers(self.bottleneck),
            goal=numbers(self.goal),
            unsafe=numbers(self.unsafe),
            valuations=[numbers(column) for column in self.valuation_columns],
            labels=labels,
            dead_end=numbers(self.dead_end),
            value_exact=each(self.value_exact, texts),
            danger_exact=each(self.danger_exact, texts),
            q_exact=each(self.q_exact, texts),
            probabilities_exact=each(self.probabilities_exact, texts),
        )

    def label_tuples(self) -> list[tuple[str, ...]]:
        """Each state's labels (converted once, kept; without the other columns' lists)."""
        return self._label_list

    @cached_property
    def _label_list(self) -> list[tuple[str, ...]]:
        """Each state's labels, through one integer code per state (few distinct sets)."""
        if not self.label_names:
            return [()] * len(self)
        kind = np.int64 if len(self.label_names) < 63 else object  # object: unbounded ints
        weights = np.array([1 << k for k in range(len(self.label_names))], dtype=kind)
        codes = _listed(self.label_bits.T.astype(kind) @ weights)
        names = self.label_names
        sets = {
            code: tuple(name for k, name in enumerate(names) if code >> k & 1)
            for code in set(codes)
        }
        return [sets[code] for code in codes]

    @cached_property
    def _made(self) -> list[StateFacts | None]:
        return [None] * len(self)

    def facts(self, state: int) -> StateFacts:
        """The ``StateFacts`` of one state (made once, then kept: front ends ask again)."""
        made = self._made[state]
        if made is None:
            made = self._made[state] = self._make(state)
            self._unfrozen += 1
            if self._unfrozen >= FREEZE_EVERY:
                # Made facts live as long as the oracle and are acyclic (reference counting
                # frees them). Left to the collector, each full collection would walk all made
                # so far: pauses of up to 0.3 s, holding the GIL, while 10^5 states are made.
                gc.freeze()
                self._unfrozen = 0
        return made

    def _make(
        self, state: int, centrality: float | None = None, lists: _Lists | None = None
    ) -> StateFacts:
        c = self._lists if lists is None else lists
        start, end = c.first_row[state], c.first_row[state + 1]
        names_all = self.action_names
        actions = [names_all[code] if code >= 0 else None for code in c.action_code[start:end]]
        offsets = c.row_offsets[start : end + 1]
        bounds = list(pairwise(offsets))
        rows = [
            dict(zip(c.columns[low:high], c.probabilities[low:high], strict=True))
            for low, high in bounds
        ]
        exact: dict[str, Any] = {}
        keys = None
        tied = self._tied
        if c.q_exact is not None and c.probabilities_exact is not None:
            q_texts = c.q_exact[start:end]
            keys = [_exact_number(text) for text in q_texts]
            tied = _equal
            exact = {
                "value_exact": _finite_text(c.value_exact[state])
                if c.value_exact is not None
                else None,
                "danger_exact": c.danger_exact[state] if c.danger_exact is not None else None,
                "q_exact": {
                    a: text
                    for a, text in zip(actions, q_texts, strict=True)
                    if a and text != INFINITE
                },
                "successors_exact": {
                    (action or NO_ACTION): dict(
                        zip(c.columns[low:high], c.probabilities_exact[low:high], strict=True)
                    )
                    for action, (low, high) in zip(actions, bounds, strict=True)
                },
            }
        q = c.q[start:end]
        if not self.maximising:  # the best first: the lowest Q under a minimising property
            keys = [-k for k in (q if keys is None else keys)]
        return StateFacts(
            id=state,
            valuation={
                name: column[state]
                for name, column in zip(self.variables, c.valuations, strict=True)
            },
            labels=c.labels[state],
            value=c.value[state],
            danger=c.danger[state] if c.danger is not None else None,
            dead_end=c.dead_end[state],
            bottleneck=c.bottleneck[state],
            centrality=self._centrality_list[state] if centrality is None else centrality,
            is_goal=c.goal[state],
            is_unsafe=c.unsafe[state],
            is_initial=state == self.initial,
            **choice_facts(actions, q, rows, c.scheduler[state], tied, keys),
            value_interval=_interval(self.value_low, self.value_high, state),
            danger_interval=_interval(self.danger_low, self.danger_high, state),
            **exact,
            **self._rewards_of(state, start, end, actions),
        )

    def _rewards_of(
        self, state: int, start: int, end: int, actions: list[str | None]
    ) -> dict[str, Any]:
        """A reward property's ``rewards`` (and ``rewards_exact``) of one state's choices, by
        action; none where the property's run has ended."""
        if self.rewards is None or (self.ended is not None and self.ended[state]):
            return {}
        keys = [action or NO_ACTION for action in actions]
        found: dict[str, Any] = {
            "rewards": dict(zip(keys, self.rewards[start:end].tolist(), strict=True))
        }
        if self.rewards_exact is not None:
            texts = [str(text) for text in self.rewards_exact[start:end].tolist()]
            found["rewards_exact"] = dict(zip(keys, texts, strict=True))
        return found

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
            "centrality_method": np.array(self.centrality_method, dtype=str),
            "goal": self.goal,
            "unsafe": self.unsafe,
            "initial": np.array(self.initial, dtype=np.int64),
            "tie_tolerance": np.array(self.tie_tolerance, dtype=float),
            **{name: getattr(self, name) for name in FACT_COLUMNS},
        }
        for name in EXACT_COLUMNS + PROPERTY_COLUMNS:
            if getattr(self, name) is not None:
                arrays[name] = getattr(self, name)
        if not self.maximising:
            arrays["minimising"] = np.array(True)
        if self.danger is not None:
            arrays["danger"] = self.danger
        if self.centrality is not None:
            arrays["centrality"] = self.centrality
        for name in ("value_low", "value_high", "danger_low", "danger_high"):
            if getattr(self, name) is not None:
                arrays[name] = getattr(self, name)
        for name, column in zip(self.variables, self.valuation_columns, strict=True):
            arrays[VALUATION_PREFIX + name] = column
        return arrays

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> ColumnarStates:
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
            centrality=arrays.get("centrality"),
            goal=arrays["goal"],
            unsafe=arrays["unsafe"],
            initial=int(arrays["initial"]),
            tie_tolerance=float(arrays["tie_tolerance"]),
            **{name: arrays[name] for name in FACT_COLUMNS},
            **cast(dict[str, Any], {name: arrays.get(name) for name in EXACT_COLUMNS}),
            value_low=arrays.get("value_low"),
            value_high=arrays.get("value_high"),
            danger_low=arrays.get("danger_low"),
            danger_high=arrays.get("danger_high"),
            centrality_method=str(arrays["centrality_method"])
            if "centrality_method" in arrays
            else NOT_COMPUTED,
            maximising="minimising" not in arrays,
            **cast(dict[str, Any], {name: arrays.get(name) for name in PROPERTY_COLUMNS}),
        )

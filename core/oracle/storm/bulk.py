"""Read a built float stormpy model in bulk: the transition matrix as CSR arrays, labels as
boolean arrays and valuations as one array per variable, with no Python object per state.

``structure.read_structure`` walks the model one state and one entry at a time, which costs
minutes and gigabytes at 10^6 states. Here the matrix comes out of Storm through its binary UMB
export (row group offsets, row offsets, columns and probabilities as raw arrays): its pattern at
once, its probabilities only when asked (``BulkModel.load_probabilities``), so that Storm's own
copy of the matrix can be freed first (the export stays open as an unlinked file). Labels through
``BitVector.store_as_string`` (64-bit words) and valuations through ``Valuations.get_*_values``
(one list per variable). Choice names follow ``read_structure`` exactly: labels of a choice
joined by "+" in sorted order, unlabelled choices None, repeated names told apart as name#2.
An exact (Rational) model, small by construction (``OracleRequest.exact_state_limit``), is read
entry by entry instead, keeping each probability as a ``Fraction`` beside its float.
"""

from __future__ import annotations

import os
import tarfile
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix

from explaincheck.core.oracle.arrays import ChoiceArrays
from explaincheck.core.oracle.storm.structure import first_initial
from explaincheck.core.oracle.storm.types import BitVector, SparseModel


@dataclass
class BulkModel:
    """The reachable state space of an MDP as flat arrays (the columnar ``ModelStructure``).
    A float model's probabilities are read by ``load_probabilities``: until then ``arrays``
    holds the matrix's pattern (every entry 1)."""

    arrays: ChoiceArrays
    action_code: np.ndarray  # per choice row: index into ``action_names``, -1 when unlabelled
    action_names: tuple[str, ...]
    labels: dict[str, np.ndarray]  # label -> bool per state (every label of Storm's labelling)
    valuations: dict[str, np.ndarray]  # variable -> value per state, in the model's order
    initial: int
    warnings: tuple[str, ...]
    # an exact model's probabilities, one per entry of ``arrays.rows`` (None: a float model)
    exact_probabilities: list[Fraction] | None = None
    # the export that still holds the probabilities (None once read, or for an exact model)
    pending: _UmbArchive | None = field(default=None, repr=False)

    def probabilities(self) -> np.ndarray:
        """The matrix's probabilities, one per entry (read from the export if not loaded)."""
        if self.pending is None:
            return np.asarray(self.arrays.rows.data)
        return self.pending.member("branch-to-probability.bin", np.float64)

    def load_probabilities(self) -> None:
        """Put the probabilities into ``arrays.rows`` (once; Storm's model may be gone)."""
        if self.pending is not None:
            data = self.pending.member("branch-to-probability.bin", np.float64)
            if len(data) != self.arrays.rows.nnz:
                raise ValueError("UMB export with a probability count unlike its entries")
            self.arrays.rows.data = data
            self.pending.close()
            self.pending = None

    @property
    def size(self) -> int:
        return self.arrays.size

    def with_label(self, label: str) -> np.ndarray:
        found = self.labels.get(label)
        return found.copy() if found is not None else np.zeros(self.size, dtype=bool)

    @cached_property
    def label_names(self) -> tuple[str, ...]:
        return tuple(sorted(self.labels))


def bits_to_array(bits: BitVector, size: int) -> np.ndarray:
    """A Storm BitVector as a bool array, from its 64-bit words (``store_as_string`` gives the
    size then the words in decimal; bit i of the vector is the most significant bit first)."""
    words = str(bits.store_as_string()).split()[1:]
    packed = np.array([int(w) for w in words], dtype=">u8") if words else np.zeros(0, ">u8")
    unpacked = np.unpackbits(packed.view(np.uint8), bitorder="big").astype(bool)
    result = np.zeros(size, dtype=bool)
    result[: min(size, len(unpacked))] = unpacked[:size]
    return result


def matrix_arrays(model: SparseModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(first_row, row_offsets, columns, probabilities) of a float model's matrix."""
    try:
        archive = _UmbArchive(model)
    except Exception:  # an older Storm without UMB: slower, still no per-state objects
        return _row_matrix(model)
    with archive:
        first_row, offsets, columns = archive.pattern(model.nr_states)
        return first_row, offsets, columns, archive.member("branch-to-probability.bin", np.float64)


class _UmbArchive:
    """Storm's binary UMB export of a float model (uncompressed), opened and unlinked at once:
    each array is read straight from its place in the archive, with no second copy in memory,
    and the file's space is freed when it is closed or the process ends, however it ends."""

    def __init__(self, model: SparseModel) -> None:
        import stormpy.io as storm_io

        options = storm_io.UmbExportOptions()
        options.compression = storm_io.CompressionMode.NO_COMPRESSION
        options.value_type = storm_io.UmbExportValueType.DOUBLE
        with tempfile.TemporaryDirectory(prefix="explaincheck-umb-") as folder:
            path = Path(folder) / "model.umb"
            storm_io.export_to_umb(model, str(path), options=options)
            with tarfile.open(path) as archive:
                self.places = {m.name: (m.offset_data, m.size) for m in archive.getmembers()}
            # kept open past the folder's removal: the data lives until closed
            self.handle: BinaryIO = open(path, "rb")  # noqa: SIM115

    def member(self, name: str, dtype: npt.DTypeLike) -> np.ndarray:
        if name not in self.places:
            raise ValueError(f"UMB export without {name}")
        offset, size = self.places[name]
        kind = np.dtype(dtype)
        self.handle.seek(offset, os.SEEK_SET)
        return np.fromfile(self.handle, dtype=kind, count=size // kind.itemsize)

    def pattern(self, states: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(first_row, row_offsets, columns): offsets and columns as 32-bit integers where
        they fit (``index_type``)."""
        if "state-to-choices.bin" in self.places:  # Storm's uint64, all < 2^63
            first_row = self.member("state-to-choices.bin", np.int64)
        else:  # a DTMC: one choice per state
            first_row = np.arange(states + 1, dtype=np.int64)
        offsets = self.member("choice-to-branches.bin", np.int64)
        kind = index_type(max(int(offsets[-1]), int(first_row[-1]), states))
        columns: np.ndarray = self.member("branch-to-target.bin", np.int64).astype(kind)
        return first_row, offsets.astype(kind), columns

    def close(self) -> None:
        self.handle.close()

    def __enter__(self) -> _UmbArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def index_type(largest: int) -> type:
    """int32 where every index fits (a 10^7-state model's 6·10^7 entries do), else int64: the
    matrix's column indices are its largest array after the probabilities."""
    return np.int32 if largest < np.iinfo(np.int32).max else np.int64


def _row_matrix(model: SparseModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The same arrays read row by row (the fallback when the UMB export is unavailable)."""
    first_row, offsets, columns, exact = _entries(model)
    return first_row, offsets, columns, np.array([float(p) for p in exact], dtype=np.float64)


def _entries(model: SparseModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Fraction]]:
    """(first_row, row_offsets, columns, probabilities as fractions), entry by entry (a Storm
    Rational's text is exact; a float's ``Fraction`` is the float itself)."""
    matrix = model.transition_matrix
    n = model.nr_states
    first_row = np.array([matrix.get_row_group_start(s) for s in range(n)] + [matrix.nr_rows])
    offsets = np.zeros(matrix.nr_rows + 1, dtype=np.int64)
    columns = np.zeros(matrix.nr_entries, dtype=np.int64)
    probabilities: list[Fraction] = []
    at = 0
    for row in range(matrix.nr_rows):
        for entry in matrix.get_row(row):
            columns[at] = entry.column
            probabilities.append(Fraction(str(entry.value)))
            at += 1
        offsets[row + 1] = at
    return first_row.astype(np.int64), offsets, columns, probabilities


def _valuations(model: SparseModel) -> dict[str, np.ndarray]:
    if not model.has_state_valuations():
        return {}
    valuations = model.state_valuations
    result: dict[str, np.ndarray] = {}
    for variable in valuations.get_all_variables():
        if variable.has_boolean_type():
            # a BitVector: ``np.array`` of it would list its set bits' indices (STORMPY2.md)
            bits = valuations.get_boolean_values(variable)
            result[variable.name] = bits_to_array(bits, model.nr_states)
        elif variable.has_integer_type():
            result[variable.name] = np.array(valuations.get_int64_values(variable), dtype=np.int64)
        else:
            result[variable.name] = np.array(valuations.get_double_values(variable), dtype=float)
    # in name order, as Storm's JSON valuations (and so ``read_structure``) list them
    return {name: result[name] for name in sorted(result)}


def _actions(model: SparseModel, rows: int) -> tuple[np.ndarray, list[str]]:
    """Per row an index into the names (the sorted labels of the choice joined by "+")."""
    if not model.has_choice_labeling():
        return np.full(rows, -1, dtype=np.int32), []
    labeling = model.choice_labeling
    names = sorted(labeling.get_labels())
    if not names:
        return np.full(rows, -1, dtype=np.int32), []
    if len(names) <= 62:
        keys = np.zeros(rows, dtype=np.int64)
        for i, name in enumerate(names):  # one label at a time: no labels × rows int64 table
            keys |= bits_to_array(labeling.get_choices(name), rows).astype(np.int64) << i
        combos, code = _distinct(keys)
        members = [[i for i in range(len(names)) if (int(k) >> i) & 1] for k in combos]
    else:
        membership = np.stack([bits_to_array(labeling.get_choices(n), rows) for n in names])
        combos, code = np.unique(membership.T, axis=0, return_inverse=True)
        members = [np.flatnonzero(row).tolist() for row in combos]
    joined = ["+".join(names[i] for i in m) for m in members]
    table = sorted({j for j in joined if j})
    lookup = np.array([table.index(j) if j else -1 for j in joined], dtype=np.int32)
    return lookup[code.ravel()], table


# integer keys below this are told apart by counting (one int64 count per key: at most 128 MB),
# above it by sorting
DENSE_KEYS = 1 << 24


def _distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for non-negative keys, by counting where they
    are small (a model's few label combinations): linear, where sorting the 2·10^6 rows of the
    10^6-state grid took 0.2 s."""
    if not len(keys) or int(keys.max()) >= DENSE_KEYS:
        return np.unique(keys, return_inverse=True)
    present = np.flatnonzero(np.bincount(keys))
    position = np.zeros(int(present[-1]) + 1, dtype=np.int64)
    position[present] = np.arange(len(present))
    return present.astype(keys.dtype), position[keys]


def read_bulk(model: SparseModel, *, exact: bool = False, deferred: bool = False) -> BulkModel:
    """The model as arrays; warnings as ``read_structure`` words them. ``exact``: a Rational
    model, whose probabilities are also kept as fractions. ``deferred``: a float model's
    probabilities are read by ``load_probabilities``, once Storm's model may be freed."""
    n = model.nr_states
    exact_probabilities = None
    pending = None
    if exact:
        first_row, offsets, columns, exact_probabilities = _entries(model)
        probabilities = np.array([float(p) for p in exact_probabilities], dtype=np.float64)
    else:
        try:
            pending = _UmbArchive(model)
        except Exception:  # an older Storm without UMB: slower, still no per-state objects
            first_row, offsets, columns, probabilities = _row_matrix(model)
        else:
            first_row, offsets, columns = pending.pattern(n)
            probabilities = np.ones(len(columns), dtype=np.int8)  # the pattern, until loaded
    rows_count = int(first_row[-1])
    rows = csr_matrix((probabilities, columns, offsets), shape=(rows_count, n), copy=False)
    arrays = ChoiceArrays(rows, first_row)
    if pending is not None and not deferred:
        rows.data = pending.member("branch-to-probability.bin", np.float64)
        pending.close()
        pending = None
    code, names = _actions(model, rows_count)
    labeling = model.labeling
    labels = {name: bits_to_array(labeling.get_states(name), n) for name in labeling.get_labels()}
    warnings: list[str] = []
    multi = sorted(name for name in names if "+" in name and np.any(code == names.index(name)))
    if multi:
        warnings.append(
            "choices with several action labels (synchronised commands) are named by joining "
            f"their labels: {', '.join(multi[:5])}"
        )
    counts = np.diff(first_row)
    unlabelled_rows = np.bincount(arrays.state_of_row[code < 0], minlength=n)
    unlabelled_states = int(np.sum((counts > 1) & (unlabelled_rows > 0)))
    if unlabelled_states:
        warnings.append(
            f"{unlabelled_states} states offer a choice between unlabelled commands; unlabelled "
            "choices are left out of Q, A* and A° (label every command of a real decision)"
        )
    code, names, duplicates = _disambiguate(arrays, code, names)
    if duplicates:
        warnings.append(
            f"{duplicates} states have several choices with the same action label; they are "
            "told apart as name#2, name#3, ..."
        )
    initial, more = first_initial(model)
    if more:
        warnings.append(more)
    return BulkModel(
        arrays,
        code,
        tuple(names),
        labels,
        _valuations(model),
        initial,
        tuple(warnings),
        exact_probabilities,
        pending,
    )


def _disambiguate(
    arrays: ChoiceArrays, code: np.ndarray, names: list[str]
) -> tuple[np.ndarray, list[str], int]:
    """Name the k-th repeat of an action within a state name#k (only those states loop)."""
    labelled = np.flatnonzero(code >= 0)
    width = len(names) + 1
    pairs = arrays.state_of_row[labelled].astype(np.int64) * width + code[labelled]
    if arrays.size * width <= DENSE_KEYS:  # one count per (state, action): linear
        counts = np.bincount(pairs, minlength=1)
        repeated_states = np.unique(np.flatnonzero(counts > 1) // width)
    else:  # too many to count densely: sort
        _, first_index, counts = np.unique(pairs, return_index=True, return_counts=True)
        repeated_states = np.unique(arrays.state_of_row[labelled][first_index[counts > 1]])
    if not len(repeated_states):
        return code, names, 0
    code = code.copy()
    names = list(names)
    for state in repeated_states.tolist():
        seen: dict[int, int] = {}
        for row in range(arrays.first_row[state], arrays.first_row[state + 1]):
            if code[row] < 0:
                continue
            seen[code[row]] = seen.get(code[row], 0) + 1
            if seen[code[row]] > 1:
                name = f"{names[code[row]]}#{seen[code[row]]}"
                if name not in names:
                    names.append(name)
                code[row] = names.index(name)
    return code, names, len(repeated_states)

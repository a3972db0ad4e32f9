"""Read a built float stormpy model in bulk: the transition matrix as CSR arrays, labels as
boolean arrays and valuations as one array per variable, with no Python object per state.

``structure.read_structure`` walks the model one state and one entry at a time, which costs
minutes and gigabytes at 10^6 states. Here the matrix comes out of Storm through its binary UMB
export (row group offsets, row offsets, columns and probabilities as raw arrays), labels through
``BitVector.store_as_string`` (64-bit words) and valuations through ``Valuations.get_*_values``
(one list per variable). Choice names follow ``read_structure`` exactly: labels of a choice
joined by "+" in sorted order, unlabelled choices None, repeated names told apart as name#2.
An exact (Rational) model, small by construction (``OracleRequest.exact_state_limit``), is read
entry by entry instead, keeping each probability as a ``Fraction`` beside its float.
"""

from __future__ import annotations

import tarfile
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix

from explaincheck.core.oracle.arrays import ChoiceArrays
from explaincheck.core.oracle.storm.structure import first_initial
from explaincheck.core.oracle.storm.types import BitVector, SparseModel


@dataclass
class BulkModel:
    """The reachable state space of an MDP as flat arrays (the columnar ``ModelStructure``)."""

    arrays: ChoiceArrays
    action_code: np.ndarray  # per choice row: index into ``action_names``, -1 when unlabelled
    action_names: tuple[str, ...]
    labels: dict[str, np.ndarray]  # label -> bool per state (every label of Storm's labelling)
    valuations: dict[str, np.ndarray]  # variable -> value per state, in the model's order
    initial: int
    warnings: tuple[str, ...]
    # an exact model's probabilities, one per entry of ``arrays.rows`` (None: a float model)
    exact_probabilities: list[Fraction] | None = None

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
        return _umb_matrix(model)
    except Exception:  # an older Storm without UMB: slower, still no per-state objects
        return _row_matrix(model)


def _umb_matrix(model: SparseModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(first_row, row_offsets, columns, probabilities) through Storm's binary UMB export."""
    import stormpy.io as storm_io

    options = storm_io.UmbExportOptions()
    options.compression = storm_io.CompressionMode.NO_COMPRESSION
    options.value_type = storm_io.UmbExportValueType.DOUBLE
    with tempfile.TemporaryDirectory(prefix="explaincheck-umb-") as folder:
        path = Path(folder) / "model.umb"
        storm_io.export_to_umb(model, str(path), options=options)
        with tarfile.open(path) as archive:

            def member(name: str, dtype: npt.DTypeLike) -> np.ndarray:
                stream = archive.extractfile(name)
                if stream is None:
                    raise ValueError(f"UMB export without {name}")
                return np.frombuffer(stream.read(), dtype=dtype)

            first_row = member("state-to-choices.bin", np.uint64).astype(np.int64)
            offsets = member("choice-to-branches.bin", np.uint64).astype(np.int64)
            columns = member("branch-to-target.bin", np.uint64).astype(np.int64)
            probabilities = member("branch-to-probability.bin", np.float64).copy()
    return first_row, offsets, columns, probabilities


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
        return np.full(rows, -1, dtype=np.int64), []
    labeling = model.choice_labeling
    names = sorted(labeling.get_labels())
    if not names:
        return np.full(rows, -1, dtype=np.int64), []
    membership = np.stack([bits_to_array(labeling.get_choices(name), rows) for name in names])
    if len(names) <= 62:
        keys = (membership.astype(np.int64) << np.arange(len(names))[:, None]).sum(axis=0)
        combos, code = np.unique(keys, return_inverse=True)
        members = [[i for i in range(len(names)) if (int(k) >> i) & 1] for k in combos]
    else:
        combos, code = np.unique(membership.T, axis=0, return_inverse=True)
        members = [np.flatnonzero(row).tolist() for row in combos]
    joined = ["+".join(names[i] for i in m) for m in members]
    table = sorted({j for j in joined if j})
    lookup = np.array([table.index(j) if j else -1 for j in joined], dtype=np.int64)
    return lookup[code.ravel()], table


def read_bulk(model: SparseModel, *, exact: bool = False) -> BulkModel:
    """The model as arrays; warnings as ``read_structure`` words them. ``exact``: a Rational
    model, whose probabilities are also kept as fractions."""
    n = model.nr_states
    exact_probabilities = None
    if exact:
        first_row, offsets, columns, exact_probabilities = _entries(model)
        probabilities = np.array([float(p) for p in exact_probabilities], dtype=np.float64)
    else:
        first_row, offsets, columns, probabilities = matrix_arrays(model)
    rows_count = int(first_row[-1])
    rows = csr_matrix((probabilities, columns, offsets), shape=(rows_count, n))
    arrays = ChoiceArrays(rows, first_row)
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
    )


def _disambiguate(
    arrays: ChoiceArrays, code: np.ndarray, names: list[str]
) -> tuple[np.ndarray, list[str], int]:
    """Name the k-th repeat of an action within a state name#k (only those states loop)."""
    labelled = np.flatnonzero(code >= 0)
    pairs = arrays.state_of_row[labelled] * (len(names) + 1) + code[labelled]
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

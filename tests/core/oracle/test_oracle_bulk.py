"""The bulk (columnar) path of large models gives what the per-state path gives, and its
``.npz`` cache round-trips without ever unpickling."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from oracle_helpers import model
from test_oracle_bottlenecks import TEST_MODELS

from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import cache, compute_in_process
from explaincheck.core.oracle.columnar import ColumnarStates
from explaincheck.core.oracle.serialization import to_contract
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.bulk import bits_to_array, read_bulk
from explaincheck.core.oracle.storm.structure import read_structure
from explaincheck.core.oracle.types import VERIFIED, OracleRequest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from gridworld import gridworld_prism

CASES = (
    [f"env:{e}" for e in BUILTIN_IDS]
    + [f"model:{m}:{c}" for m, c in TEST_MODELS]
    + ["grid:20:listed", "grid:30:hashed"]
)


@pytest.fixture(scope="module")
def request_for(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bulk")

    def make(case: str) -> OracleRequest:
        kind, name, extra = [*case.split(":"), ""][:3]
        if kind == "env":
            return load_builtin(name).request(method=VERIFIED)
        if kind == "model":
            return OracleRequest(model(name), constants=extra, method=VERIFIED)
        path = folder / f"grid{name}{extra}.prism"
        path.write_text(gridworld_prism(int(name), listed=extra == "listed"))
        return OracleRequest(str(path), method=VERIFIED)

    return make


def both_paths(request: OracleRequest):
    per_state = compute_in_process(request, columnar_from=10**12)
    columnar = compute_in_process(request, columnar_from=0)
    return per_state, columnar


def without_centrality(facts):
    return replace(facts, centrality=0.0)


@pytest.mark.parametrize("case", CASES)
def test_bulk_path_gives_the_per_state_facts(request_for, case):
    per_state, columnar = both_paths(request_for(case))
    assert isinstance(columnar.states, ColumnarStates)
    assert not isinstance(per_state.states, ColumnarStates)
    assert columnar.model == per_state.model
    assert columnar.warnings == per_state.warnings
    assert columnar.values_method == per_state.values_method
    assert columnar.bottlenecks == per_state.bottlenecks
    assert columnar.dead_ends == per_state.dead_ends
    assert len(columnar.states) == len(per_state.states)
    for ours, theirs in zip(columnar.states, per_state.states, strict=True):
        # V, D, Q, A*, A°, successors, labels, valuation: identical, bit for bit
        assert without_centrality(ours) == without_centrality(theirs)
        # exact Brandes sums in parallel, so the last bits may differ between runs
        assert ours.centrality == pytest.approx(theirs.centrality, rel=1e-9, abs=1e-15)
    contract_a, contract_b = to_contract(per_state), to_contract(columnar)
    for contract in (contract_a, contract_b):
        contract["model"].pop("seconds")
        for state in contract["states"]:
            state.pop("centrality")
    assert contract_a == contract_b


def test_bulk_reader_matches_the_storm_model_entry_by_entry(request_for):
    request = request_for("model:deadlock:")
    parsed = building.parse(request)
    storm_model = building.build(parsed, exact=False, state_limit=10**6, path=request.model_path)
    bulk = read_bulk(storm_model)
    structure = read_structure(storm_model, exact=False)
    assert bulk.size == structure.size and bulk.initial == structure.initial
    for state, choices in enumerate(structure.choices):
        rows = range(bulk.arrays.first_row[state], bulk.arrays.first_row[state + 1])
        assert len(rows) == len(choices)
        for row, choice in zip(rows, choices, strict=True):
            code = bulk.action_code[row]
            assert (bulk.action_names[code] if code >= 0 else None) == choice.action
            entries = bulk.arrays.rows[row]
            assert dict(zip(entries.indices.tolist(), entries.data.tolist(), strict=True)) == {
                t: float(p) for t, p in choice.probabilities.items()
            }
    for label in storm_model.labeling.get_labels():
        expected = [label in labels for labels in structure.labels]
        assert bulk.with_label(label).tolist() == expected


def test_bit_vectors_of_every_length_unpack_in_order():
    from stormpy.datastructures import BitVector

    for size in (1, 63, 64, 65, 130):
        for chosen in ([], [0], [size - 1], list(range(0, size, 3))):
            bits = BitVector(size, chosen)
            assert np.flatnonzero(bits_to_array(bits, size)).tolist() == chosen


@pytest.fixture
def cache_folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("EXPLAINCHECK_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "oracle"


@pytest.fixture(scope="module")
def columnar_result(request_for):
    return compute_in_process(request_for("grid:30:hashed"), columnar_from=0)


def test_npz_cache_round_trips_a_columnar_result(cache_folder, columnar_result):
    cache.store("k" * 64, columnar_result)
    assert [p.suffix for p in cache_folder.iterdir()] == [".npz"]
    loaded = cache.load("k" * 64)
    assert loaded is not None and loaded.from_cache
    assert isinstance(loaded.states, ColumnarStates)
    assert loaded.model == columnar_result.model
    assert loaded.values_method == columnar_result.values_method
    assert loaded.centrality_method == columnar_result.centrality_method
    assert loaded.bottlenecks == columnar_result.bottlenecks
    assert list(loaded.states) == list(columnar_result.states)
    assert loaded.states[-1] == columnar_result.states[len(columnar_result.states) - 1]


def _with_pickled_meta(path: Path, result, marker: Path) -> None:
    """A cache file like a real one, except that its metadata is a pickled object array whose
    unpickling would create ``marker``."""
    from explaincheck.core.oracle.serialization import to_cache

    class Trap:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    data = to_cache(result)
    columns = data.pop("columns")
    meta = np.array([json.dumps(data), Trap()], dtype=object)
    np.savez(path, **columns, **{cache.META: meta})


def test_npz_cache_refuses_pickled_entries(cache_folder, columnar_result, tmp_path):
    cache_folder.mkdir(parents=True)
    marker = tmp_path / "unpickled"
    entry = cache_folder / ("p" * 64 + ".npz")
    _with_pickled_meta(entry, columnar_result, marker)
    assert cache.load("p" * 64) is None  # ignored (and so recomputed), never trusted
    assert not marker.exists()
    with np.load(entry, allow_pickle=True) as archive:  # the file really holds a pickle
        archive[cache.META]
    assert marker.exists()


def test_corrupt_npz_entry_is_ignored(cache_folder, columnar_result):
    cache.store("c" * 64, columnar_result)
    entry = cache_folder / ("c" * 64 + ".npz")
    entry.write_bytes(entry.read_bytes()[:1000])
    assert cache.load("c" * 64) is None


def test_columnar_role_counts_and_predecessors_match_the_states(columnar_result):
    states = columnar_result.states
    assert isinstance(states, ColumnarStates)
    counts: dict[str, int] = {}
    reverse: list[set[int]] = [set() for _ in range(len(states))]
    for state in states:
        for role in state.roles:
            counts[role] = counts.get(role, 0) + 1
        for successors in state.successors.values():
            for target, probability in successors.items():
                if probability > 0 and target != state.id:
                    reverse[target].add(state.id)
    assert states.role_counts() == counts
    assert counts["initial"] == 1 and counts["dead_end"] > 0
    assert states.predecessors() == [tuple(sorted(found)) for found in reverse]
    assert states[5] is states[5]  # made once, then kept

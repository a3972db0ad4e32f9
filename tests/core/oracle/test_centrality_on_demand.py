"""Centrality on demand (issue 33.10): a large result asked without it computes none in the
child, says so in ``oracle --json`` (null scores, ``centrality_method``), and computes the same
scores as an eager run the first time a state's facts are read, in the process that reads them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explaincheck.core.oracle import cache, compute_in_process
from explaincheck.core.oracle.columnar import NOT_COMPUTED, ColumnarStates
from explaincheck.core.oracle.serialization import from_cache, to_cache, to_contract
from explaincheck.core.oracle.types import OracleRequest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from gridworld import gridworld_prism

LAUNCH = "import sys; from explaincheck.gui.launcher import main; sys.exit(main())"


@pytest.fixture(scope="module")
def grid30(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("grid") / "grid30.prism"
    path.write_text(gridworld_prism(30))
    return path


def columnar(path: Path, wanted: bool):
    request = OracleRequest(str(path), method="verified", centrality=wanted)
    return compute_in_process(request, columnar_from=0)


def test_a_result_without_centrality_says_so_and_prints_null(grid30):
    result = columnar(grid30, wanted=False)
    states = result.states
    assert isinstance(states, ColumnarStates) and not states.centrality_computed
    assert "centrality (own)" not in result.phases
    contract = to_contract(result)
    assert contract["model"]["centrality_method"] == NOT_COMPUTED
    assert {s["centrality"] for s in contract["states"]} == {None}
    assert not states.centrality_computed  # printing did not compute it
    assert contract["states"][5]["V"] == states[5].value


def test_first_read_computes_the_eager_scores(grid30):
    eager = columnar(grid30, wanted=True)
    lazy = from_cache(to_cache(columnar(grid30, wanted=False)))  # as the parent receives it
    assert lazy.centrality_described == NOT_COMPUTED
    scores = np.array([s.centrality for s in lazy.states])
    expected = np.array([s.centrality for s in eager.states])
    assert np.abs(scores - expected).max() <= 1e-12 and expected.max() > 0
    assert lazy.centrality_described == eager.centrality_described == "exact (Brandes)"
    contract = to_contract(lazy)  # now computed: printed with how it was obtained
    assert contract["model"]["centrality_method"] == "exact (Brandes)"
    assert [s["centrality"] for s in contract["states"]] == pytest.approx(expected.tolist())


def test_the_cache_keeps_computed_scores_and_their_method(grid30, tmp_path):
    result = columnar(grid30, wanted=False)
    entry = tmp_path / "entry.npz"
    cache.store_npz(entry, to_cache(result))
    loaded = cache.load_npz(entry)
    assert loaded is not None and not loaded.states.centrality_computed
    loaded.states.centrality_scores()
    cache.store_npz(entry, to_cache(loaded))
    again = cache.load_npz(entry)
    assert again is not None and again.states.centrality_computed
    assert again.centrality_described == "exact (Brandes)"
    assert np.array_equal(again.states.centrality, loaded.states.centrality)


def test_sampled_scores_on_demand_are_within_the_stated_error(tmp_path):
    """Above 5,000 states the scores are sampled (ε, δ stated); on demand they agree with the
    child's within twice the stated ε."""
    path = tmp_path / "grid75.prism"
    path.write_text(gridworld_prism(75))  # 5,625 cells
    eager = columnar(path, wanted=True)
    lazy = columnar(path, wanted=False)
    scores = lazy.states.centrality_scores()
    assert lazy.centrality_described == eager.centrality_described
    assert lazy.centrality_described.startswith("approximate")
    epsilon = float(lazy.centrality_described.split("±")[1].split()[0])
    assert np.abs(scores - eager.states.centrality).max() <= 2 * epsilon


def test_the_cli_prints_centrality_only_when_asked(tmp_path):
    path = tmp_path / "grid75.prism"
    path.write_text(gridworld_prism(75))
    common = [sys.executable, "-c", LAUNCH, "oracle", str(path), "--json", "--no-cache"]
    plain = json.loads(subprocess.run(common, capture_output=True, text=True, check=True).stdout)
    asked = json.loads(
        subprocess.run([*common, "--centrality"], capture_output=True, text=True, check=True).stdout
    )
    assert plain["model"]["centrality_method"] == NOT_COMPUTED
    assert plain["states"][0]["centrality"] is None
    assert asked["model"]["centrality_method"].startswith("approximate")
    assert all(0.0 <= s["centrality"] <= 1.0 for s in asked["states"])
    assert [s["V"] for s in plain["states"]] == [s["V"] for s in asked["states"]]


def test_the_streamed_contract_is_the_same_text(grid30):
    """``oracle --json`` writes the contract a chunk of states at a time (memory at 10^6
    states); the text is the one ``json.dumps(to_contract(...))`` gives, for both paths."""
    import io

    from explaincheck.core.oracle.serialization import write_contract

    for result in (columnar(grid30, wanted=False), compute_in_process(OracleRequest(str(grid30)))):
        out = io.StringIO()
        write_contract(result, out, chunk=7)
        assert out.getvalue() == json.dumps(to_contract(result)) + "\n"


def test_the_summary_computes_no_centrality(grid30):
    """``oracle MODEL`` without --json prints no centrality, so it computes none (issue 48.5:
    its summary cost 3.6 times the CPU of --json, sampling scores it never printed)."""
    from explaincheck.core.cli.oracle_command import summary_text

    result = from_cache(to_cache(columnar(grid30, wanted=False)))  # as the parent receives it
    text = summary_text(result)
    assert "V(s0)" in text and "bottlenecks" in text
    assert not result.states.centrality_computed
    assert result.centrality_described == NOT_COMPUTED

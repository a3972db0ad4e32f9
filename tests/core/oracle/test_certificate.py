"""Every value says how it was obtained (issue 33.7): exact fractions, or sound intervals that
hold both the verified number and the exact one."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from oracle_helpers import model
from scipy.sparse import csr_matrix
from test_real_prism import key_grid

from explaincheck.core.oracle import certificate, compute, compute_in_process
from explaincheck.core.oracle.arrays import ChoiceArrays
from explaincheck.core.oracle.end_components import almost_sure, maximal_end_components
from explaincheck.core.oracle.serialization import from_cache, to_cache, to_contract
from explaincheck.core.oracle.types import EXACT, VERIFIED, OracleRequest


@pytest.fixture(scope="module")
def key_grid_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("certificate") / "key10.prism"
    path.write_text(key_grid(10))
    return str(path)


@pytest.mark.parametrize("columnar_from", [10**9, 0])
def test_bounded_intervals_hold_the_exact_values(key_grid_path, columnar_from):
    exact = compute_in_process(OracleRequest(key_grid_path, method=EXACT))
    bounded = compute_in_process(
        OracleRequest(key_grid_path, method=VERIFIED), columnar_from=columnar_from
    )
    assert exact.certificate.kind == "exact" and exact.certificate.max_width == 0
    assert all(s.value_interval is None for s in exact.states)
    assert bounded.certificate.kind == "bounded" and bounded.certificate.max_width <= 1e-6
    for truth, facts in zip(exact.states, bounded.states, strict=True):
        low, high = facts.value_interval
        assert low <= facts.value <= high
        assert Fraction(low) <= Fraction(truth.value_exact) <= Fraction(high)
        d_low, d_high = facts.danger_interval
        assert Fraction(d_low) <= Fraction(truth.danger_exact) <= Fraction(d_high)


def test_the_contract_and_the_cache_carry_the_certificate(key_grid_path):
    bounded = compute_in_process(OracleRequest(key_grid_path, method=VERIFIED))
    contract = to_contract(bounded)
    assert contract["model"]["certificate"]["kind"] == "bounded"
    assert all(len(s["V_interval"]) == 2 and len(s["D_interval"]) == 2 for s in contract["states"])
    again = from_cache(to_cache(bounded))
    assert again.certificate == bounded.certificate
    assert again.states[3].value_interval == bounded.states[3].value_interval
    exact = to_contract(compute_in_process(OracleRequest(model("key_bool"), method=EXACT)))
    assert exact["model"]["certificate"]["kind"] == "exact"
    assert not any("V_interval" in s for s in exact["states"])


@pytest.fixture(scope="module")
def slippery_grid_path(tmp_path_factory):
    """The benchmark's 40×40 slippery gridworld (holes by hash, 1,600 states): the old bound
    was 0.376 wide there, its upper half never settling on walls a policy can linger along."""
    import importlib.util

    from oracle_helpers import ROOT

    spec = importlib.util.spec_from_file_location("gridworld", ROOT / "benchmarks" / "gridworld.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path_factory.mktemp("certificate") / "slippery40.prism"
    path.write_text(module.gridworld_prism(40))
    return str(path)


def _own_bounds_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Leave Storm's bounds out of the certificate, so the project's own bounds alone are tested
    (on the same values: policy iteration started from Storm's scheduler)."""
    own = compute.certify

    def without_storm(*arguments):
        return own(*arguments[:7], (None, None))

    monkeypatch.setattr(compute, "certify", without_storm)


@pytest.mark.parametrize("sources", ["both", "own"])
def test_the_slippery_grid_bound_is_tight_and_holds_the_exact_values(
    slippery_grid_path, sources, monkeypatch
):
    if sources == "own":
        _own_bounds_only(monkeypatch)
    bounded = compute_in_process(OracleRequest(slippery_grid_path, method=VERIFIED))
    exact = compute_in_process(OracleRequest(slippery_grid_path, method=EXACT))
    assert bounded.certificate.max_width <= 1e-6
    words = bounded.certificate.method
    assert ("end components" in words) == (sources == "own" or "short of" in words)
    for truth, facts in zip(exact.states, bounded.states, strict=True):
        low, high = facts.value_interval
        assert Fraction(low) <= Fraction(truth.value_exact) <= Fraction(high)
        d_low, d_high = facts.danger_interval
        assert Fraction(d_low) <= Fraction(truth.danger_exact) <= Fraction(d_high)


def test_d_bounded_beside_v_gives_the_bounds_of_one_after_the_other(
    slippery_grid_path, monkeypatch
):
    """Where V and D both need the own bounds, D's are computed on a helper thread beside V's
    (``certify``): the same numbers as computed one after the other."""
    _own_bounds_only(monkeypatch)
    request = OracleRequest(slippery_grid_path, method=VERIFIED, centrality=False)
    submitted = []
    original = certificate.ThreadPoolExecutor.submit

    def counting(self, *arguments, **keywords):
        submitted.append(arguments[0].__name__)
        return original(self, *arguments, **keywords)

    monkeypatch.setattr(certificate.ThreadPoolExecutor, "submit", counting)
    monkeypatch.setattr(certificate, "available_cores", lambda: 2)
    beside = compute_in_process(request, columnar_from=0).states
    monkeypatch.setattr(certificate, "available_cores", lambda: 1)
    after = compute_in_process(request, columnar_from=0).states
    assert submitted.count("_escape_bounds") == 1  # the first run only
    for name in ("value_low", "value_high", "danger_low", "danger_high"):
        assert np.array_equal(getattr(beside, name), getattr(after, name)), name
    assert 0.0 < float(np.max(beside.danger_high - beside.danger_low)) <= 1e-6


def _arrays(choices: list[list[dict[int, float]]]) -> ChoiceArrays:
    first_row = np.concatenate([[0], np.cumsum([len(c) for c in choices])])
    rows = [row for state in choices for row in state]
    matrix = csr_matrix(
        (
            [p for row in rows for p in row.values()],
            ([i for i, row in enumerate(rows) for _ in row], [t for row in rows for t in row]),
        ),
        shape=(len(rows), len(choices)),
    )
    return ChoiceArrays(matrix, first_row)


def test_graph_analysis_finds_almost_sure_states_and_end_components():
    # 0 -a-> {1: .5, 3: .5} or loops; 1 <-> 2 forever or 2 -> goal 4 with .5 / hole 3 with .5
    arrays = _arrays(
        [
            [{0: 1.0}, {1: 0.5, 3: 0.5}],
            [{2: 1.0}],
            [{1: 1.0}, {4: 0.5, 3: 0.5}],
            [{3: 1.0}],
            [{4: 1.0}],
        ]
    )
    goal = np.array([False, False, False, False, True])
    can_reach = np.array([True, True, True, False, True])
    assert almost_sure(arrays, goal, can_reach).tolist() == [False, False, False, False, True]
    found = maximal_end_components(arrays, np.array([True, True, True, False, False]))
    assert found.count == 2
    assert found.component[1] == found.component[2] != found.component[0] >= 0
    assert found.internal.tolist() == [True, False, True, True, False, False, False]
    sure = _arrays([[{1: 0.5, 0: 0.5}], [{1: 1.0}]])
    assert almost_sure(sure, np.array([False, True]), np.array([True, True])).all()


def test_the_own_upper_bound_stays_tight_where_a_policy_can_linger(monkeypatch, tmp_path):
    """The 10^4-state slippery gridworld: its upper half is one plateau of V ≈ 0.79 whose
    walls a policy can press against for ~1e13 steps, and two plateau groups there pass a
    policy back and forth. The own bound was 0.38 wide (margin paid per lingering step, the
    collapsed MDP's cycle a singular solve); Storm's interval iteration stays 0.209 wide."""
    import importlib.util

    from oracle_helpers import ROOT

    spec = importlib.util.spec_from_file_location("gridworld", ROOT / "benchmarks" / "gridworld.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path / "slippery100.prism"
    path.write_text(module.gridworld_prism(100))
    both = compute_in_process(OracleRequest(str(path), method=VERIFIED, centrality=False))
    _own_bounds_only(monkeypatch)
    own = compute_in_process(OracleRequest(str(path), method=VERIFIED, centrality=False))
    assert own.certificate.max_width <= 1e-6 and both.certificate.max_width <= 1e-6
    low, high = own.states.value_low, own.states.value_high  # columnar: 10^4 states
    together_low, together_high = both.states.value_low, both.states.value_high
    # two sound intervals of one value overlap, and the intersection is inside the own one
    assert np.all(low <= together_high) and np.all(together_low <= high)
    assert np.all(together_high - together_low <= high - low + 1e-15)

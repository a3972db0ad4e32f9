"""Every value says how it was obtained (issue 33.7): exact fractions, or sound intervals that
hold both the verified number and the exact one."""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracle_helpers import model
from test_real_prism import key_grid

from explaincheck.core.oracle import compute_in_process
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

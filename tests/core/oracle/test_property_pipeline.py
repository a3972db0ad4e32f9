"""A user's property through the one pipeline (``compute.py`` with ``property_answers.py``):
the same facts as the property's exact oracle assembled from its pieces
(``tests/support/property_oracle.py``), and under the verified method values inside their
certified intervals around the exact ones."""

from __future__ import annotations

import io
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from explaincheck.core.oracle.compute import compute_in_process
from explaincheck.core.oracle.property import parse_property
from explaincheck.core.oracle.serialization import to_contract, write_contract
from explaincheck.core.oracle.types import EXACT, VERIFIED, OracleRequest
from tests.support.property_oracle import property_oracle

MODELS = Path(__file__).resolve().parents[2] / "models"
CASES = [
    ("rewards_four.prism", 'R{"time"}min=? [F "goal"]'),
    ("rewards_four.prism", 'R{"time"}max=? [F "goal"]'),
    ("rewards_four.prism", 'Pmin=? [F "goal"]'),
    ("rewards_four.prism", 'Pmax=? [!"unsafe" U "goal"]'),
    ("ladder.prism", 'Pmin=? [F "goal"]'),
    ("ladder.prism", 'Pmax=? [r>3 U "goal"]'),
    ("likely_not_safe.prism", 'Pmin=? [!"unsafe" U "goal"]'),
    ("rewards_four.prism", 'Pmax=? [F<=3 "goal"]'),
    ("ladder.prism", 'Pmin=? [F<=6 "goal"]'),
    ("likely_not_safe.prism", 'Pmax=? [F<=2 "goal"]'),
]


def _request(model: str, text: str, method: str = "auto") -> OracleRequest:
    prop = parse_property(text)
    return OracleRequest(
        model_path=str(MODELS / model), goal_label=prop.goal_text, property=prop, method=method
    )


@pytest.mark.parametrize(("model", "text"), CASES)
def test_the_pipeline_gives_the_assembled_oracle(model, text):
    found = compute_in_process(_request(model, text))
    expected = property_oracle(MODELS / model, text)
    assert found.method == EXACT and found.prop == expected.prop
    assert len(found.states) == len(expected.states)
    for got, want in zip(found.states, expected.states, strict=True):
        assert got.value_exact == want.value_exact, (got.id, got.valuation)
        assert got.q_exact == want.q_exact
        assert math.isinf(got.value) == math.isinf(want.value)
        assert (got.best, got.worst, got.action_order) == (want.best, want.worst, want.action_order)
        assert got.optimal_action in (got.best or (None,))
        assert (got.dead_end, got.bottleneck, got.is_goal) == (
            want.dead_end,
            want.bottleneck,
            want.is_goal,
        )
        assert got.rewards_exact == want.rewards_exact
        assert got.labels == want.labels
        assert got.danger == want.danger


def test_the_four_state_rewards_model_by_hand():
    found = compute_in_process(_request("rewards_four.prism", 'R{"time"}min=? [F "goal"]'))
    start = found.states[found.model.initial]
    assert Fraction(start.value_exact) == Fraction(7, 2)
    assert start.q_exact == {"fast": "17/4", "safe": "7/2"}
    assert start.best == ("safe",) and start.worst == ("fast",)
    pit = next(s for s in found.states if s.is_unsafe)
    assert math.isinf(pit.value) and pit.value_exact is None and pit.dead_end
    contract = to_contract(found)
    assert contract["model"]["property"]["text"] == 'R{"time"}min=? [F "goal"]'
    assert next(s for s in contract["states"] if s["id"] == pit.id)["V"] is None


@pytest.mark.parametrize(
    ("model", "text"),
    [
        ("ladder.prism", 'Pmin=? [F "goal"]'),
        ("ladder.prism", 'Pmax=? [r>3 U "goal"]'),
        ("rewards_four.prism", 'R{"time"}min=? [F "goal"]'),
        ("ladder.prism", 'Pmin=? [F<=6 "goal"]'),
    ],
)
def test_verified_values_lie_in_their_intervals(model, text):
    exact = compute_in_process(_request(model, text, EXACT))
    verified = compute_in_process(_request(model, text, VERIFIED))
    assert verified.certificate.kind == "bounded" and verified.certificate.max_width < 1e-9
    for got, want in zip(verified.states, exact.states, strict=True):
        assert got.value_interval is not None
        low, high = got.value_interval
        if math.isinf(want.value):
            assert math.isinf(got.value)
            continue
        assert low <= Fraction(want.value_exact) <= high
        finite = [q for q in want.q.values() if not math.isinf(q)]
        if finite and max(finite) - min(finite) > 1e-6:  # beyond the float tie tolerance
            assert got.best == want.best and got.worst == want.worst


@pytest.mark.parametrize(
    "text", ['R{"time"}min=? [F "goal"]', 'Pmin=? [!"unsafe" U "goal"]', 'Pmax=? [F<=3 "goal"]']
)
def test_a_columnar_result_writes_the_same_json(text):
    """Kept as columns (as a large result is), the property's states write the same strict
    JSON as their facts do: rewards, infinite values as null with their flags."""
    small = compute_in_process(_request("rewards_four.prism", text))
    columns = compute_in_process(_request("rewards_four.prism", text), columnar_from=1)
    assert columns.columnar and not small.columnar
    assert [s.q_exact for s in columns.states] == [s.q_exact for s in small.states]
    written = io.StringIO()
    write_contract(columns, written)
    found = json.loads(written.getvalue())
    wanted = json.loads(json.dumps(to_contract(small), allow_nan=False))
    assert found["states"] == wanted["states"]


def test_a_deadlines_progress_moves_forward_through_its_product():
    # the progress bar: every phase of a deadline's run has its share, in the order they come
    from explaincheck.core.oracle.types import phase_fraction

    seen: list[str] = []
    compute_in_process(
        _request("ladder.prism", 'Pmin=? [F<=6 "goal"]'), lambda phase, **_: seen.append(phase)
    )
    assert "product" in seen
    fractions = [phase_fraction(phase) for phase in seen]
    assert None not in fractions, seen
    assert fractions == sorted(fractions), list(zip(seen, fractions, strict=True))

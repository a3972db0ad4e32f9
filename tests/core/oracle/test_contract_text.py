"""A columnar result's ``oracle --json`` states written from its columns (``contract_text``)
are the very text ``json.dumps`` gives for the states' facts."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from explaincheck.core import json_output
from explaincheck.core.oracle import compute_in_process, contract_text
from explaincheck.core.oracle.columnar import ColumnarStates
from explaincheck.core.oracle.serialization import to_contract, write_contract
from explaincheck.core.oracle.types import EXACT, VERIFIED, OracleRequest

# a bool and an int variable, ties (wait/stay do nothing; left and right mirror each other),
# an unlabelled choice, a deadlock (x=0 & lit), a state with one action, labels on some states
MODEL = """mdp
module m
  x : [0..6] init 3;
  lit : bool init false;
  [left] x>0 & x<6 -> 0.5:(x'=x-1) + 0.5:(lit'=!lit);
  [right] x>0 & x<6 -> 0.5:(x'=x+1) + 0.5:(lit'=!lit);
  [wait] x>0 & x<6 -> true;
  [stay] x=6 -> true;
  [] x=0 & !lit -> 0.3:(x'=1) + 0.7:true;
endmodule
label "goal" = x=6;
label "unsafe" = x=0 & lit;
label "lit" = lit;
"""


@pytest.mark.parametrize("block", [5, contract_text.BLOCK])
@pytest.mark.parametrize("unsafe", [True, False])
@pytest.mark.parametrize("centrality", [True, False])
@pytest.mark.parametrize("method", [VERIFIED, EXACT])
def test_the_columns_give_the_text_of_the_facts(
    monkeypatch, tmp_path, unsafe, centrality, block, method
):
    monkeypatch.setattr(contract_text, "BLOCK", block)  # 5: blocks end mid-model
    monkeypatch.setattr(contract_text, "HELD_FROM", 0 if block == 5 else 10**9)  # arenas held
    path = tmp_path / "walk.prism"
    path.write_text(MODEL if unsafe else MODEL.replace('label "unsafe"', 'label "other"'))
    request = OracleRequest(str(path), method=method, centrality=centrality)
    result = compute_in_process(request, columnar_from=0)
    assert isinstance(result.states, ColumnarStates)
    assert result.states.centrality_computed == centrality
    out = io.StringIO()
    write_contract(result, out, chunk=3)
    expected = to_contract(result)
    assert out.getvalue() == json.dumps(expected) + "\n"
    states = expected["states"]
    # the text has teeth: ties, nothing-doing actions, bools, an unlabelled choice, no danger
    assert any(len(s["best"]) == 2 for s in states)
    assert any(s["do_nothing"] == ["wait"] for s in states)
    assert {s["valuation"]["lit"] for s in states} == {True, False}
    assert any(s["Q"] == {} and s["optimal_action"] is None for s in states)
    assert all((s["D"] is None) != unsafe for s in states)
    assert all((s["centrality"] is None) != centrality for s in states)
    # verified: each value's certified interval (and the danger's); exact: each value's fraction
    assert all(("V_interval" in s) == (method == VERIFIED) for s in states)
    assert all(("D_interval" in s) == (method == VERIFIED and unsafe) for s in states)
    assert all(("V_exact" in s) == (method == EXACT) for s in states)


def test_a_column_of_numbers_is_written_as_json_writes_each():
    # orjson's text where it equals repr's, repr's where orjson's differs: exponents (1e-05,
    # 4.5e-06, 1e+16), signed zeros, round-offs; a non-finite number is strict JSON's null
    wanted = [0.0, -0.0, 1.0, 0.1, 1 / 3, 0.7999999999793, 1 - 2**-53, 1e-4, 9.999999999999999e-05]
    wanted += [1e-05, 4.5e-06, 5e-324, 1e16, 9999999999999998.0, 1.2345678901234568e17, -2.5e-7]
    wanted += [float("inf"), float("-inf"), float("nan"), 123456.789, 1e15]
    # about 1e-9, where orjson's exponent gets its second digit: orjson writes 1e-9, repr 1e-09
    wanted += [1e-9, -1e-9, float(np.nextafter(1e-9, 0)), 9.87654321e-10, 1e-10, 2.5e-300]
    column = np.array(wanted)
    assert contract_text.numbers(column) == [json_output.dumps(x) for x in wanted]
    strided = np.repeat(column, 2)[::2]  # not contiguous: orjson refuses such an array itself
    assert contract_text.numbers(strided) == [json_output.dumps(x) for x in wanted]
    assert contract_text.numbers(np.zeros(0)) == []


def test_a_random_column_of_every_magnitude_is_written_as_json_writes_each():
    rng = np.random.default_rng(7)
    column = rng.random(20_000) * 10.0 ** rng.integers(-9, 20, 20_000)
    assert contract_text.numbers(column) == [json.dumps(x) for x in column.tolist()]


def test_tiny_numbers_down_to_the_smallest_subnormal_are_written_as_json_writes_each():
    # below 1e-9 orjson's text is kept (repr's costs 1.3 µs a number there): both must agree
    rng = np.random.default_rng(11)
    exponents = rng.uniform(-320, -8, 50_000)
    column = rng.uniform(1, 10, 50_000) * 10.0**exponents * rng.choice([-1.0, 1.0], 50_000)
    bits = rng.integers(1, 0x3E20000000000000, 50_000, dtype=np.int64).view(np.float64)
    column = np.concatenate([column, bits, -bits])  # subnormals and every bit pattern to 1e-9
    assert (np.abs(column) < 1e-9).sum() > 100_000 and (column != 0).all()
    assert contract_text.numbers(column) == [json.dumps(x) for x in column.tolist()]


def test_an_infinite_value_under_the_verified_method_is_strict_json(tmp_path):
    # an expected time with a state that never reaches the goal: V = inf there, and its
    # certified interval [inf, inf]; oracle --json wrote "V_interval": [Infinity, Infinity]
    from explaincheck.core.oracle.property import parse_property

    path = tmp_path / "stuck.prism"
    path.write_text(
        "mdp\nmodule m\n x : [0..3] init 0;\n [go] x<2 -> 0.5:(x'=x+1) + 0.5:(x'=3);\n"
        ' [stay] x=3 -> true;\nendmodule\nlabel "goal" = x=2;\n'
        'rewards "time"\n [go] true : 1;\n [stay] true : 1;\nendrewards\n'
    )
    prop = parse_property('R{"time"}min=? [F "goal"]')
    request = OracleRequest(str(path), method=VERIFIED, property=prop, goal_label=prop.goal_text)
    out = io.StringIO()
    write_contract(compute_in_process(request), out)

    def refused(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    states = json.loads(out.getvalue(), parse_constant=refused)["states"]
    stuck = next(s for s in states if s["valuation"]["x"] == 3)
    assert stuck["V"] is None and stuck["V_interval"] == [None, None]

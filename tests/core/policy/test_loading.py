"""Loading a policy table: the formats, and every bad input as one line with exit status 2."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from policy_helpers import THREE, lake_oracle, three_oracle

from explaincheck.core.cli.main import main
from explaincheck.core.policy.loading import PolicyError, load_policy, policy_from_callable


def _lake_rows(action="down") -> list[str]:
    oracle = lake_oracle()
    return [f"{s.valuation['r']},{s.valuation['c']},{action}" for s in oracle.states if s.q]


def _run_oracle(capsys, path, *extra) -> tuple[int, str, str]:
    status = main(["oracle", "frozen_lake", "--policy", str(path), *extra])
    out, err = capsys.readouterr()
    return status, out, err


def _one_line_error(capsys, path, *extra) -> str:
    status, _, err = _run_oracle(capsys, path, *extra)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    return lines[0]


def test_csv_json_and_distribution_tables(tmp_path):
    oracle = three_oracle()
    csv_file = tmp_path / "p.csv"
    csv_file.write_text('# a comment\ns,action\n0,"a:0.25,b:3/4"\n')
    json_file = tmp_path / "p.json"
    json_file.write_text(json.dumps([{"s": 0, "action": {"a": 0.25, "b": 0.75}}]))
    for path in (csv_file, json_file):
        policy = load_policy(path, oracle).policy
        assert policy.choices == {0: {"a": Fraction(1, 4), "b": Fraction(3, 4)}}


def test_callable_and_rows_of_unreachable_states(tmp_path):
    oracle = three_oracle()
    assert policy_from_callable(lambda v: {"b": 1.0}, oracle).choices == {0: {"b": 1}}
    path = tmp_path / "p.csv"
    path.write_text("s,action\n0,a\n7,a\n")  # s=7 is no reachable state: ignored, counted
    assert load_policy(path, oracle).ignored_rows == 1


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("r,c,x,action\n0,0,1,left\n", "row 2: unknown variable 'x'"),
        ("r,action\n0,left\n", "row 2: no value for variable 'c'"),
        ("r,c,action\n0,0,jump\n", "row 2: unknown action 'jump'"),
        ("r,c,action\n1,1,left\n", "row 2: action 'left' is not enabled in state"),
        ('r,c,action\n0,0,"left:0.5,up:0.4"\n', "row 2: probabilities sum to 0.9, not 1"),
        ("r,c,action\n0,0,left\n0,0,up\n", "row 3: state (c=0, r=0) is already given in"),
        ("r,c,action\n0,0,left:x\n", "row 2: probability 'x' of 'left' is not a number"),
        ("r,c\n0,0\n", "needs an 'action' column"),
        ('[{"r": 0, "c": 0, "action": "left"},]', ":1:37: not valid JSON"),
    ],
    ids=[
        "unknown-variable",
        "missing-variable",
        "unknown-action",
        "not-enabled",
        "sum",
        "duplicate",
        "not-a-number",
        "no-action-column",
        "bad-json",
    ],
)
def test_bad_table_is_one_line_exit_2(capsys, tmp_path, table, message):
    path = tmp_path / ("p.json" if table.startswith("[") else "p.csv")
    path.write_text(table)
    assert message in _one_line_error(capsys, path)


def test_missing_state_names_it_and_the_default_fills_it(capsys, tmp_path):
    path = tmp_path / "p.csv"
    rows = _lake_rows()
    path.write_text("r,c,action\n" + "\n".join(rows[1:]) + "\n")  # the initial state left out
    line = _one_line_error(capsys, path)
    assert "no choice for reachable state 0 (c=0, r=0)" in line and "--policy-default" in line
    status, out, _ = _run_oracle(capsys, path, "--policy-default", "uniform")
    assert status == 0 and "1 states filled by the default uniform" in out


def test_missing_file_is_one_line(capsys, tmp_path):
    assert "cannot read policy" in _one_line_error(capsys, tmp_path / "none.csv")


def test_oracle_json_contract(capsys, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text('s,action\n0,"a:1/2,b:1/2"\n')
    assert main(["oracle", str(THREE), "--policy", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"]["value_loss"] == pytest.approx(1 / 16)
    assert data["model"]["value_loss_exact"] == "1/16"
    s0 = data["states"][0]
    assert s0["action_policy"] == {"a": 0.5, "b": 0.5}
    assert s0["V_policy"] == pytest.approx(7 / 16) and s0["D_policy"] == pytest.approx(9 / 16)
    assert s0["regret"] == pytest.approx(1 / 20)
    assert data["states"][1]["action_policy"] is None


def test_policy_error_is_an_explaincheck_error():
    from explaincheck.core.errors import ExplaincheckError

    assert issubclass(PolicyError, ExplaincheckError)

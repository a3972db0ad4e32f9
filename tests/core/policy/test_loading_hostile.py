"""Hostile policy tables (issue 34 points 12 and 16), read by ``oracle --policy`` on the real
Frozen Lake model: each is one line, exit 2, naming the row and column where it can; rows
outside the variables' values are warned about and counted, never silently dropped."""

from __future__ import annotations

from policy_helpers import lake_oracle, three_oracle

from explaincheck.core.cli.main import main
from explaincheck.core.policy.loading import load_policy


def one_line(capsys, path) -> str:
    assert main(["oracle", "frozen_lake", "--policy", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def lake_rows(action="down") -> list[str]:
    return [
        f'{s.valuation["r"]},{s.valuation["c"]},"{action}"' for s in lake_oracle().states if s.q
    ]


def test_probabilities_of_1e308_are_one_line(tmp_path, capsys):
    path = tmp_path / "p.csv"
    rows = lake_rows("down:1e308,up:1e308")
    path.write_text("r,c,action\n" + "\n".join(rows) + "\n")
    assert "sum to 2E+308, not 1" in one_line(capsys, path)  # was: OverflowError


def test_a_json_policy_nested_100000_deep_is_one_line(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in one_line(capsys, path)  # was: RecursionError


def test_a_sum_just_past_one_prints_the_digits_that_differ(tmp_path, capsys):
    path = tmp_path / "p.csv"
    rows = lake_rows("down:0.500001,up:0.5")
    path.write_text("r,c,action\n" + "\n".join(rows) + "\n")
    assert "sum to 1.000001, not 1" in one_line(capsys, path)  # was: "sum to 1, not 1"


def test_a_non_integer_cell_names_its_row_and_column(tmp_path, capsys):
    path = tmp_path / "p.csv"
    rows = lake_rows()
    rows[0] = "0.5," + rows[0].split(",", 1)[1]
    path.write_text("r,c,action\n" + "\n".join(rows) + "\n")
    err = one_line(capsys, path)
    assert "row 2, column 'r': '0.5' is not an integer" in err  # was: "no choice for ... 0"


def test_rows_outside_the_variables_values_are_warned_and_counted(tmp_path, capsys):
    oracle = three_oracle()
    path = tmp_path / "p.csv"
    path.write_text("s,action\n0,a\n99,a\n98,b\n")
    loaded = load_policy(path, oracle)
    assert (loaded.ignored_rows, loaded.outside_rows) == (2, 2)
    err = capsys.readouterr().err
    assert "2 rows name no reachable state, 2 of them outside the values" in err

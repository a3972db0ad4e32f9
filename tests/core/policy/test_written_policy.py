"""``policy --write-policy`` writes the format its file name says (issue 52 point 9): ``P.json``
held CSV, which ``run --policy P.json`` refused as "not valid JSON". Now ``.json`` is a JSON table
and ``.csv`` a CSV table, both read back by ``oracle --policy`` and ``run --policy`` with the
same value; any other name is refused before the LLM is asked. Also the policy reader's new
bounds (the one reader of a user's JSON): a NaN probability and non-UTF-8 bytes are named."""

from __future__ import annotations

import json

import pytest

from explaincheck.core.cli.main import main

POLICY = ["policy", "--env", "frozen_lake", "--llm", "random"]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("written")
    for name in ("P.json", "P.csv"):
        db = folder / f"{name}.sqlite"
        assert main([*POLICY, "--db", str(db), "--write-policy", str(folder / name)]) == 0
    return folder


def value_loss(capsys, policy) -> float:
    capsys.readouterr()
    assert main(["oracle", "frozen_lake", "--policy", str(policy), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["model"]["value_loss"]


def test_a_json_name_gets_json_and_a_csv_name_csv(written):
    table = json.loads((written / "P.json").read_text())["policy"]
    assert table and all(set(row) == {"r", "c", "action"} for row in table)
    header = (written / "P.csv").read_text().splitlines()[0]
    assert header == "c,r,action"


def test_both_are_read_back_by_oracle_and_run(written, capsys, tmp_path):
    assert value_loss(capsys, written / "P.json") == value_loss(capsys, written / "P.csv") > 0
    for name in ("P.json", "P.csv"):
        db = tmp_path / f"run-{name}.sqlite"
        args = ["run", "--env", "frozen_lake", "--llm", "random", "--categories", "satisfy"]
        assert main([*args, "--budget", "2", "--policy", str(written / name), "--db", str(db)]) == 0


def test_a_name_without_a_table_format_is_refused_before_asking(tmp_path, capsys):
    db = tmp_path / "p.sqlite"
    capsys.readouterr()
    assert main([*POLICY, "--db", str(db), "--write-policy", str(tmp_path / "P.txt")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "P.txt: name a policy table .csv or .json (the format is read from the name)"
    )
    assert not db.exists() and not (tmp_path / "P.txt").exists()


def test_a_hostile_json_policy_is_named(written, tmp_path, capsys):
    table = json.loads((written / "P.json").read_text())
    table["policy"][0]["action"] = {"left": float("nan")}
    (tmp_path / "nan.json").write_text(json.dumps(table))
    (tmp_path / "bytes.csv").write_bytes(b"r,c,action\n0,0,le\xfeft\n")
    for name, said in (
        ("nan.json", "nan.json: field 'policy[0].action.left': NaN is not a number JSON has"),
        ("bytes.csv", "bytes.csv: not UTF-8 text (byte 0xfe at line 2, column 7)"),
    ):
        capsys.readouterr()
        assert main(["oracle", "frozen_lake", "--policy", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and said in err, err

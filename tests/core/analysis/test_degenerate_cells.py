"""Cells that measure nothing are shown, marked and left out of the means (issue 51.3).

On a grid whose every value is 0 or 1 (tests/models/grid01.prism) the product itself warns that
satisfy, more_promising, safer, ranking and subset_dead_end "measure nothing here"; a constant
answerer ("always 1", the first option, yes) served over real HTTP by the Ollama stand-in then
scored near perfect on satisfy, and Table 1's average, the headline and the means counted it.
Now those cells carry ‡, the average is over the cells that measure something, RQ1's headline
leaves them out, and ``report --include-degenerate`` counts them again."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from explaincheck.core.cli.main import main
from explaincheck.core.taxonomy.registry import OWN_CATEGORIES
from tests.support.ollama_standin import Script, StandinOllama, schema_answer

GRID = str(Path(__file__).parents[2] / "models" / "grid01.prism")
DEGENERATE = {"satisfy", "more_promising", "safer", "ranking", "subset_dead_end"}
CONSTANT = "ollama:constant"


def always_one(request: dict) -> str:
    """1 for a probability, else the first option (yes, K, the first action)."""
    schema = request.get("format") or {}
    properties = schema.get("properties", {})
    if "probability" in properties:
        return json.dumps({"probability": 1})
    return json.dumps(schema_answer(schema))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("degenerate")
    db = folder / "grid.sqlite"
    with StandinOllama({"constant": Script()}, answer=always_one) as server:
        args = ["run", "--env", GRID, "--llm", CONSTANT, "--llm", "random", "--budget", "6"]
        args += ["--selection", "both", "--categories", ",".join(OWN_CATEGORIES)]  # no plugin's
        args += ["--ollama-host", server.url]
        assert main([*args, "--db", str(db)]) == 0
    out, included = folder / "report", folder / "included"
    assert main(["report", "--db", str(db), "--out", str(out), "--format", "csv"]) == 0
    assert main(["report", "--db", str(db), "--out", str(included), "--format", "csv",
                 "--include-degenerate"]) == 0  # fmt: skip
    return db, out, included


def _table1(folder: Path) -> pd.DataFrame:
    return pd.read_csv(folder / "table1.csv", index_col=[0, 1], dtype=str)


def _sides(text: str) -> list[float]:
    return [float(part.rstrip("†‡")) for part in str(text).split("/")]


def test_the_constant_answerers_degenerate_cells_are_marked_and_out_of_the_average(report):
    _, out, included = report
    table = _table1(out)
    row = table.loc[(GRID, CONSTANT)]
    for category in DEGENERATE:
        assert "‡" in str(row[category]), category
    for category in ("best_action", "worst_action"):
        assert "‡" not in str(row[category]), category
    satisfy = _sides(row["satisfy"])
    assert min(satisfy) >= 0.8  # "always 1" on a model whose values are 0 or 1: near perfect
    measuring = [_sides(row[c]) for c in ("best_action", "worst_action")]
    expected = [sum(side) / len(side) for side in zip(*measuring, strict=True)]
    assert _sides(row["average"]) == pytest.approx(expected, abs=0.006)  # shown to 2 decimals
    counted = _table1(included).loc[(GRID, CONSTANT)]
    assert "‡" in str(counted["satisfy"])  # still marked when counted
    every = [_sides(counted[c]) for c in (*DEGENERATE, "best_action", "worst_action")]
    with_all = [sum(side) / len(side) for side in zip(*every, strict=True)]
    assert _sides(counted["average"]) == pytest.approx(with_all, abs=0.006)
    assert _sides(counted["average"]) != pytest.approx(_sides(row["average"]), abs=0.006)


def test_the_headline_and_the_means_leave_the_degenerate_cells_out(report, capsys):
    db, out, included = report
    cells = pd.read_csv(out / "rq1_cells.csv")
    assert set(cells["category"]) <= {"best_action", "worst_action"}
    assert set(pd.read_csv(included / "rq1_cells.csv")["category"]) & DEGENERATE
    difficulty = pd.read_csv(out / "rq3_difficulty.csv")
    assert not set(difficulty.iloc[:, 0]) & DEGENERATE
    capsys.readouterr()
    assert main(["report", "--db", str(db)]) == 0
    text = " ".join(capsys.readouterr().out.split())  # the terminal wraps the notes
    assert f"‡ satisfy measures nothing in {GRID}" in text
    assert "left out of Avg., RQ1's headline and the means" in text
    assert "that measure nothing on their model (‡ in Table 1) are left out" in text

"""``report`` prints its terminal text within ``COLUMNS`` (issue: 347 columns at 80)."""

from __future__ import annotations

from explaincheck.core.cli.main import main
from explaincheck.core.paths import environments_dir


def test_the_report_fits_80_columns(tmp_path, capsys, monkeypatch):
    db = tmp_path / "r.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "random", "--llm", "oracle", "--budget", "2"]
    assert main([*args, "--selection", "both", "--db", str(db)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", "--db", str(db), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    lines = out[: out.index("\nwrote ")].splitlines()  # then the files written, by path
    # a path is never broken: only a line that holds the model's whole path may be longer
    path = str(environments_dir() / "frozen_lake" / "model.prism")
    assert max(len(line.replace(path, "P")) for line in lines) <= 80, max(lines, key=len)
    text = "\n".join(lines)
    assert "constants" in text and "HOLE_3_0=true" in text  # nothing is cut away
    assert "4 executions" not in text and "executions over 1 environment;" in text

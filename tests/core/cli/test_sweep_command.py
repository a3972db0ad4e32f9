"""``explaincheck sweep``: table, PNG, JSON contract and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from explaincheck.core.cli.main import main

FLIP = str(Path(__file__).resolve().parents[2] / "models" / "flip.prism")


def test_json_contract_and_png(tmp_path, capsys):
    png = tmp_path / "flip.png"
    code = main(
        ["sweep", FLIP, "--const", "p=0.2:0.8:0.3", "--state", "0", "--json", "--png", str(png)]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["value"] for p in data["points"]] == [0.2, 0.5, 0.8]
    assert [p["V_initial"] for p in data["points"]] == [0.5, 0.5, 0.8]
    assert [p["best"] for p in data["points"]] == [
        {"0": ["safe"]},
        {"0": ["safe", "risky"]},
        {"0": ["risky"]},
    ]
    (tip,) = data["tipping_points"]
    assert tip["state"] == 0 and tip["between"] == [0.2, 0.8] and tip["at"] == 0.5
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_table(tmp_path, capsys):
    png = tmp_path / "t.png"
    assert main(["sweep", FLIP, "--const", "p=0.3:0.6:0.3", "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "0.3  1/2" in out and "3/5" in out
    assert "state 0: A* safe -> risky between 0.3 and 0.6, at 1/2 = 0.5 (parametric)" in out


def test_no_picture_unless_asked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", FLIP, "--const", "p=0.2:0.8:0.3", "--json"]) == 0
    assert main(["sweep", FLIP, "--const", "p=0.2:0.8:0.3"]) == 0
    assert "plot:" not in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_errors_are_one_line(capsys):
    assert main(["sweep", FLIP, "--const", "p=0.1:0.9"]) == 2
    assert "NAME=LO:HI:STEP" in capsys.readouterr().err
    assert main(["sweep", FLIP, "--const", "q=0.1:0.9:0.1", "--png", ""]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "every point failed" in err and "unknown constant q" in err


def test_a_bare_name_sweeps_the_range_offered(capsys):
    """``--const slip`` sweeps a probability's whole range, as the GUI offers it: the flip at
    0.0975 that 0.1 to 0.9 never saw (issue 50); a name the model does not leave open is one
    line."""
    slip = str(Path(FLIP).with_name("slip.prism"))
    assert main(["sweep", slip, "--const", "slip"]) == 0
    captured = capsys.readouterr()
    assert "sweeping slip from 0 to 1 step 0.05: slip is a probability" in captured.err
    assert "at 39/400 = 0.0975 (parametric)" in captured.out
    assert main(["sweep", slip, "--const", "slop"]) == 2
    err = capsys.readouterr().err
    assert "--const slop: not an undefined constant" in err and "(undefined: slip)" in err
    assert len(err.strip().splitlines()) == 1

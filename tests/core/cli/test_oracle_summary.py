"""``oracle``'s summary: valuations in the model's declaration order, D(s0) with its fraction
where V(s0) has one, lines wrapped at ``COLUMNS``; ``--json`` is the contract either way."""

from __future__ import annotations

import json

from explaincheck.core.cli.main import main
from explaincheck.core.cli.oracle_command import declared_order
from explaincheck.core.paths import environments_dir


def test_valuations_follow_the_declaration_order_and_d_has_its_fraction(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["oracle", "wolf_goat_cabbage"]) == 0
    lines = {line[:13].strip(): line[13:] for line in capsys.readouterr().out.splitlines()}
    assert lines["V(s0)"] == "0.43776 = 1368/3125"
    assert lines["D(s0)"] == "0.2 = 1/5"
    assert lines["bottlenecks"].startswith("4: 4 (f=1,w=0,g=1,cb=0,lost=0), ")


def test_the_declaration_order_is_read_from_the_prism_file(tmp_path):
    assert declared_order(str(environments_dir() / "frozen_lake" / "model.prism")) == ["r", "c"]
    model = tmp_path / "m.prism"
    model.write_text(
        "mdp\nglobal turn : bool init false;\nmodule a\n  // old : [0..1];\n"
        "  z : [0..3] init 0;\n  b : bool;\n  [go] z<3 -> 1:(z'=z+1);\nendmodule\n"
    )
    assert declared_order(str(model)) == ["turn", "z", "b"]
    assert declared_order(str(tmp_path / "missing.prism")) == []


def test_the_summary_fits_80_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["oracle", "frozen_lake"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # a path is never broken: only a line that holds the model's whole path may be longer
    path = str(environments_dir() / "frozen_lake" / "model.prism")
    assert max(len(line.replace(path, "P")) for line in lines) <= 80
    # the model line is wrapped (where it breaks depends on the clone's path): the
    # continuation is indented under the values and the constants arrive whole
    size_line = next(i for i, line in enumerate(lines) if line.startswith("size "))
    continued = lines[1:size_line]
    assert continued and all(line.startswith(" " * 13) for line in continued)
    assert continued[-1].endswith("HOLE_3_0=true)")
    assert "HOLE_1_1=true," in " ".join(lines[:size_line])


def test_json_is_the_contract(capsys):
    assert main(["oracle", "frozen_lake", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"]["states"] == 16 and len(data["states"]) == 16


def test_a_missing_unsafe_label_is_named_with_the_labels_there_are(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("EXPLAINCHECK_CACHE", str(tmp_path / "cache"))  # computed, not an old entry
    model = tmp_path / "crash.prism"
    model.write_text(
        "mdp\nmodule m\n  x : [0..2] init 0;\n  [a] x=0 -> 0.5:(x'=1) + 0.5:(x'=2);\n"
        "  [b] x=0 -> (x'=2);\n  [] x>0 -> true;\nendmodule\n"
        'label "goal" = x=1;\nlabel "crash" = x=2;\n'
    )
    assert main(["oracle", str(model)]) == 0
    warning = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warn")]
    assert warning == [
        "warning      the model has no 'unsafe' label (its labels: 'goal', 'crash'; --unsafe"
        " names another), so the danger D is absent and the 'safer' category does not apply"
    ]

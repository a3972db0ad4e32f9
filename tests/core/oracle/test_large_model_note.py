"""A PRISM file of megabytes is announced before its long build starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from explaincheck.core.cli.main import main

MODEL = Path(__file__).parents[2] / "models" / "two_step.prism"


@pytest.mark.slow  # Storm reads 1.1 MB of PRISM text for minutes: run with -m slow
def test_a_large_model_file_is_announced_once(tmp_path, capsys):
    big = tmp_path / "generated.prism"
    padding = "// generated\n" * 90_000  # 1.1 MB, as a generated model's text would be
    big.write_text(padding + MODEL.read_text())
    assert main(["oracle", str(big), "--no-cache"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "note:" in line]
    assert len(notes) == 1 and "1.1 MB of PRISM text" in notes[0] and "minutes" in notes[0]
    assert main(["oracle", str(MODEL), "--no-cache"]) == 0
    assert "note:" not in capsys.readouterr().err

"""Hostile campaign files (issue 34 point 11): not UTF-8, nested 50,000 deep, too large; each
one line naming the file, exit 2, no traceback, nothing run."""

from __future__ import annotations

import pytest

from explaincheck.core.cli.main import main


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'env = "frozen_lake"\nllm = ["r\xe9ndom"]\n', "is not UTF-8 text (byte 29)"),
        (b"x = " + b"[" * 50_000 + b"]" * 50_000 + b"\n", "nested too deeply"),
        (b"# " + b"x" * (2 << 20) + b"\n", "is over 1 MB"),
    ],
)
def test_a_bad_campaign_file_is_one_line(tmp_path, capsys, content, words):
    config = tmp_path / "c.toml"
    config.write_bytes(content)
    assert main(["run", "--config", str(config), "--db", str(tmp_path / "r.sqlite")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(config) in err and words in err
    assert not (tmp_path / "r.sqlite").exists()

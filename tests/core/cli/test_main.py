"""The ``explaincheck`` dispatcher's own options."""

from __future__ import annotations

import pytest

from explaincheck.core.cli.main import main
from explaincheck.core.store import software_version


def test_version(capsys):
    for flag in ("--version", "-V"):
        with pytest.raises(SystemExit) as done:
            main([flag])
        assert done.value.code == 0
        out = capsys.readouterr().out
        assert out == f"explaincheck {software_version()}\n"
        assert software_version()[0].isdigit()

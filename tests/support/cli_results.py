"""The stored rows of a results database, as ``explaincheck results --json`` prints them."""

from __future__ import annotations

import json

from explaincheck.core.cli.main import main


def stored_results(db, capsys) -> list[dict]:
    """``results --json`` of ``db``, read in-process (earlier output is discarded first)."""
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json"]) == 0
    return json.loads(capsys.readouterr().out)

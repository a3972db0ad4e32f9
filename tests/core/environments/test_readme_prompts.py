"""Each environment README's example prompt is the prompt an LLM is sent for that state.

The READMEs showed a preview that had drifted from the real prompt (another question, the
task's old wording); now the block must be ``render_prompt``'s text of a best-action case: the
README check of ``explaincheck plugins check`` (core/plugin_checks.py), over every environment."""

from __future__ import annotations

import pytest

from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.plugin_checks import readme_problems


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_the_readme_shows_the_real_prompt(env_id):
    env = load_builtin(env_id)
    assert env.folder is not None
    assert readme_problems(env, compute_oracle(env.request())) == []


def test_a_readme_that_drifted_is_found(tmp_path):
    import shutil

    from explaincheck.core.environments.loader import load_environment

    folder = tmp_path / "frozen_lake"
    shutil.copytree(load_builtin("frozen_lake").folder, folder)
    env = load_environment(folder)
    oracle = compute_oracle(env.request())
    readme = folder / "README.md"
    readme.write_text(readme.read_text().replace("Current state:", "Where you are:"))
    assert readme_problems(env, oracle) == [
        "README.md's example prompt is not the prompt an LLM is sent (paste it again)"
    ]
    readme.write_text("# Frozen Lake\n")
    assert readme_problems(env, oracle) == [
        "README.md has no example prompt block (explaincheck envs --prompt ID)"
    ]

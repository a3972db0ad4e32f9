"""Each environment README's example prompt is the prompt an LLM is sent for that state.

The READMEs showed a preview that had drifted from the real prompt (another question, the
task's old wording); now the block must be ``render_prompt``'s text of a best-action case."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.taxonomy.base import PRIORITIZED, TestCase
from explaincheck.core.taxonomy.prompts import render_prompt

EXAMPLE = re.compile(
    r"The prompt of a best-action case for state (\d+), as "
    r"`explaincheck\.core\.taxonomy\.prompts\.render_prompt` renders it[^\n]*\n\n"
    r"```text\n(.*?)\n```",
    re.S,
)


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_the_readme_shows_the_real_prompt(env_id):
    env = load_builtin(env_id)
    assert env.folder is not None
    readme = (Path(env.folder) / "README.md").read_text(encoding="utf-8")
    found = EXAMPLE.search(readme)
    assert found, f"{env_id}/README.md has no example prompt block"
    state = int(found.group(1))
    case = TestCase("best_action", (state,), 0.0, PRIORITIZED, 0)
    assert found.group(2) == render_prompt(case, compute_oracle(env.request()), env).text

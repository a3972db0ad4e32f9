"""``envs --prompt ID``: the README's "Example prompt" block, to paste instead of writing it."""

from __future__ import annotations

from explaincheck.core.cli.main import main
from explaincheck.core.paths import environments_dir


def test_the_printed_block_is_the_one_in_the_readme(capsys):
    assert main(["envs", "--prompt", "frozen_lake", "--state", "8"]) == 0
    block = capsys.readouterr().out.rstrip("\n")
    readme = (environments_dir() / "frozen_lake" / "README.md").read_text(encoding="utf-8")
    assert block.startswith("The prompt of a best-action case for state 8, as ")
    assert "\n\n```text\nYou are walking on a frozen lake" in block and block.endswith("\n```")
    assert block in readme


def test_the_initial_state_by_default_and_a_wrong_state_is_one_line(capsys):
    assert main(["envs", "--prompt", "wolf_goat_cabbage"]) == 0
    assert "for state 0, as" in capsys.readouterr().out
    assert main(["envs", "--prompt", "frozen_lake", "--state", "16"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "explaincheck envs: state 16 is not a state of frozen_lake (0 to 15)"

"""``run`` says "not applicable" only of categories without any test case in the model; an
opt-in category is left out by default, a small budget skips one; counts are in the right
number."""

from __future__ import annotations

from explaincheck.core.cli.main import main
from explaincheck.core.plural import counted


def plan_lines(capsys) -> list[str]:
    err = capsys.readouterr().err
    return [line.strip() for line in err.splitlines() if not line.startswith("[")]


def test_the_plan_summary_words(tmp_path, capsys):
    db = tmp_path / "w.sqlite"
    assert (
        main(["run", "--env", "water_jug", "--llm", "random", "--budget", "1", "--db", str(db)])
        == 0
    )
    lines = plan_lines(capsys)
    assert " x 1 LLM x 1 repeat = " in lines[0]
    assert "which_bottleneck: not applicable (the model has no bottleneck state)" in lines
    assert "subset_dead_end: skipped (a yes/no category needs --budget 2 or more (one case of" in (
        " ".join(lines)
    )
    assert "factors: left out by default (asked only by id: --categories factors)" in lines
    assert not [line for line in lines if line.startswith("factors: not applicable")]


def test_counted_uses_the_plural_unless_one():
    assert counted(1, "bottleneck") == "1 bottleneck"
    assert counted(4, "bottleneck") == "4 bottlenecks"
    assert counted(1, "dead end") == "1 dead end"
    assert counted(0, "LLM") == "0 LLMs"
    assert counted(2, "repeat") == "2 repeats"
    assert counted(12_000, "execution") == "12,000 executions"

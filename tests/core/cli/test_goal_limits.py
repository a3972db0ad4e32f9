"""``--goal``/``--unsafe`` expressions past a stated size never reach Storm (issue 52 points 8
and 10): a 15,000-term goal printed a 180 KB error line naming Storm's ExprTk parser, 30,000
nested parentheses crashed the model checker (exit status -11), and ``--goal ''`` silently meant
the label "goal". Each is now one short line at parse time, naming the limit; the same check
runs before the oracle's child starts for goals that come from elsewhere (the API, the GUI)."""

from __future__ import annotations

import pytest

from explaincheck.core.cli.main import main
from explaincheck.core.environments.registry import resolve
from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.isolation import OracleJob
from explaincheck.core.oracle.storm import targets

TERMS_15000 = " & ".join(f"r={i % 4}" for i in range(15_000))
NESTED_30000 = "(" * 30_000 + "r=1" + ")" * 30_000


def one_line(capsys, argv: list[str]) -> str:
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as stop:  # the argument parser's refusal
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert len(err) < 400, len(err)  # the expression is quoted cut, never whole
    return err.strip()


def test_a_15000_term_goal_is_one_short_line_naming_the_limit(capsys):
    line = one_line(capsys, ["oracle", "frozen_lake", "--goal", TERMS_15000])
    assert line.startswith("explaincheck oracle: argument --goal: the goal expression 'r=0 & r=1")
    assert "(89,997 characters) is longer than the 10,000 characters read" in line
    assert "ExprTk" not in line


def test_30000_nested_parentheses_never_reach_storm(capsys):
    line = one_line(capsys, ["oracle", "frozen_lake", "--goal", NESTED_30000])
    assert "is longer than the 10,000 characters read" in line and "crashed" not in line
    nested = "(" * 101 + "r=3" + ")" * 101
    line = one_line(capsys, ["oracle", "frozen_lake", "--unsafe", nested])
    assert "the unsafe expression" in line
    assert "nests parentheses 101 deep, over the 100 levels read" in line


def test_too_many_terms_are_named(capsys):
    goal = " | ".join(f"r={i % 4}" for i in range(1_001))  # 2,002 terms in 6,003 characters
    line = one_line(capsys, ["sweep", "frozen_lake", "--const", "N=4:4:1", "--goal", goal])
    assert "has 2,002 terms (variables, labels, numbers), over the 2,000 read" in line


@pytest.mark.parametrize("command", ["oracle", "run", "sweep", "policy"])
def test_an_empty_goal_is_an_error_not_the_label_goal(capsys, command):
    rest = {
        "oracle": ["frozen_lake"],
        "run": ["--env", "frozen_lake", "--llm", "random"],
        "sweep": ["frozen_lake", "--const", "N=4:4:1"],
        "policy": ["--env", "frozen_lake", "--llm", "random"],
    }[command]
    for option, role in (("--goal", "goal"), ("--unsafe", "unsafe")):
        line = one_line(capsys, [command, *rest, option, " "])
        assert line.endswith(
            f"argument {option}: the {role} is empty: give a label or a PRISM expression"
            f" ('explaincheck {command} --help' lists the options)"
        )


def test_a_goal_from_elsewhere_is_checked_before_the_child_starts(monkeypatch):
    def no_child(*args, **kwargs):
        raise AssertionError("the oracle's child was started")

    monkeypatch.setattr(OracleJob, "__init__", no_child)
    request = resolve("frozen_lake", goal_label=NESTED_30000).request()
    with pytest.raises(ModelError, match="is longer than the 10,000 characters read"):
        compute_oracle(request, use_cache=False)
    request = resolve("frozen_lake", goal_label="(" * 150 + "r=1" + ")" * 150).request()
    with pytest.raises(ModelError, match="nests parentheses 150 deep"):
        compute_oracle(request, use_cache=False)


def test_a_long_expression_storm_cannot_read_is_quoted_cut(capsys):
    """Inside the limits, Storm's own syntax error quotes the text cut too."""
    goal = "r=1 & " * 500 + "@"
    assert len(goal) < targets.MAX_CHARACTERS
    line = one_line(capsys, ["oracle", "frozen_lake", "--goal", goal])
    assert "(3,001 characters)" in line and "syntax error" in line

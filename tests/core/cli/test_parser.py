"""A typo on the command line is one line with the word the user most likely meant."""

from __future__ import annotations

import pytest

from explaincheck.core.cli.main import main
from explaincheck.core.cli.parser import nearest


def one_line_error(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as raised:
        main(argv)
    err = capsys.readouterr().err
    assert raised.value.code == 2
    assert err.count("\n") == 1 and "usage:" not in err and "Traceback" not in err
    return err.strip()


def test_a_misspelt_command_suggests_the_nearest(capsys):
    assert (
        one_line_error(["rnu"], capsys) == "explaincheck: unknown command 'rnu': did you mean run?"
    )
    err = one_line_error(["zzzzzz"], capsys)
    assert err.startswith("explaincheck: unknown command 'zzzzzz': the commands are envs, oracle,")


def test_a_misspelt_option_suggests_the_nearest(capsys):
    err = one_line_error(["run", "--env", "frozen_lake", "--budgte", "3"], capsys)
    assert err == "explaincheck run: unknown option --budgte: did you mean --budget?"
    err = one_line_error(["oracle", "frozen_lake", "--jsno"], capsys)
    assert err == "explaincheck oracle: unknown option --jsno: did you mean --json?"
    err = one_line_error(["run", "--env", "frozen_lake", "--budget=3", "--seeed=4"], capsys)
    assert err == "explaincheck run: unknown option --seeed: did you mean --seed?"


def test_a_misspelt_choice_suggests_the_nearest(capsys):
    err = one_line_error(["run", "--env", "frozen_lake", "--selection", "prioritzed"], capsys)
    assert err == "explaincheck run: --selection 'prioritzed': did you mean prioritized?"


def test_nothing_close_gets_the_list_or_the_help(capsys):
    err = one_line_error(["run", "--env", "frozen_lake", "--qqqqqqqq"], capsys)
    assert err == (
        "explaincheck run: unknown option --qqqqqqqq: 'explaincheck run --help' lists the options"
    )
    err = one_line_error(["oracle", "frozen_lake", "stray"], capsys)
    assert "unexpected argument 'stray'" in err


def test_nearest_needs_a_likely_typo():
    assert nearest("--budgte", ["--budget", "--db"]) == "--budget"
    assert nearest("x", ["--budget", "--db"]) is None

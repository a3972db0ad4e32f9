"""An option that takes one value, given twice, is refused in one line: argparse's ``store``
kept the last value without a word (``run --env frozen_lake --env water_jug`` ran water_jug
only). Checked over every option of every sub-command, the nested ones too (the GUI's:
tests/gui/test_gui_command_options.py)."""

from __future__ import annotations

import argparse

import pytest

from explaincheck.core.cli.main import SUBCOMMANDS, build_parser, main
from explaincheck.core.cli.parser import StoreOnce


def sub_parsers(parser: argparse.ArgumentParser, name: str = "explaincheck"):
    """``(name, parser)`` of ``parser`` and of every sub-command under it, at any depth."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from sub_parsers(sub, f"{name} {sub_name}")


def value_options(commands=SUBCOMMANDS):
    """``(parser name, parser, action)`` of every option that takes a value."""
    for name, parser in sub_parsers(build_parser(None, commands)):
        for action in parser._actions:
            if action.option_strings and action.nargs != 0:
                yield name, parser, action


def test_every_option_that_takes_a_value_is_repeatable_or_refuses_a_second():
    checked = list(value_options())
    names = {name for name, _, _ in checked}
    assert {"explaincheck run", "explaincheck oracle", "explaincheck bench run"} <= names
    silent = [
        f"{name} {action.option_strings[0]}"
        for name, _, action in checked
        if not isinstance(action, StoreOnce | argparse._AppendAction | argparse._ExtendAction)
    ]
    assert not silent, f"options whose second value would silently win: {silent}"


def test_each_single_value_option_refuses_its_second_value(capsys):
    refused = 0
    for name, parser, action in value_options():
        if not isinstance(action, StoreOnce):
            continue
        namespace = argparse.Namespace()
        option = action.option_strings[-1]
        action(parser, namespace, "a", option)
        with pytest.raises(SystemExit) as raised:
            action(parser, namespace, "b", option)
        err = capsys.readouterr().err
        assert raised.value.code == 2 and err.count("\n") == 1, (name, option, err)
        assert f"{option} takes one value and was given twice: a, then b" in err
        refused += 1
    assert refused > 100  # every sub-command's options, not a handful


@pytest.mark.parametrize(
    "argv, line",
    [
        (
            ["run", "--env", "frozen_lake", "--llm", "random", "--budget", "3", "--budget", "4"],
            "explaincheck run: --budget takes one value and was given twice: 3, then 4",
        ),
        (
            ["oracle", "frozen_lake", "--goal", "goal", "--goal", "hole"],
            "explaincheck oracle: --goal takes one value and was given twice: goal, then hole",
        ),
        (
            ["results", "--db", "a.sqlite", "--db=b.sqlite"],
            "explaincheck results: --db takes one value and was given twice: a.sqlite, then"
            " b.sqlite",
        ),
        (
            ["bench", "run", "DIR", "--llm", "random", "--db", "a", "--db", "b"],
            "explaincheck bench run: --db takes one value and was given twice: a, then b",
        ),
    ],
)
def test_a_repeated_option_is_one_line_and_exit_2(argv, line, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing may be written, wherever it would go
    with pytest.raises(SystemExit) as raised:
        main(argv)
    err = capsys.readouterr().err
    assert raised.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(line), err
    assert not list(tmp_path.iterdir())


def test_options_that_take_several_values_still_do(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    argv = ["run", "--env", "frozen_lake", "--llm", "random", "--llm", "oracle", "--budget", "1"]
    assert main([*argv, "--categories", "satisfy", "--db", str(db)]) == 0
    assert "2 LLMs" in capsys.readouterr().err

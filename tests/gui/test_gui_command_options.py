"""``explaincheck gui``'s options refuse a second value as every sub-command's do (one line,
exit 2, before Qt starts): ``gui --env frozen_lake --env dam`` once opened dam alone."""

from __future__ import annotations

import argparse

import pytest

from explaincheck.core.cli.main import build_parser
from explaincheck.core.cli.parser import StoreOnce
from explaincheck.gui.launcher import GUI_SUBCOMMAND
from explaincheck.gui.launcher import main as launcher_main


def test_every_gui_option_that_takes_a_value_refuses_a_second():
    parser = build_parser("gui", GUI_SUBCOMMAND)
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    gui = commands.choices["gui"]
    taking = [a for a in gui._actions if a.option_strings and a.nargs != 0]
    assert {"--env", "--db", "--size", "--view"} <= {a.option_strings[0] for a in taking}
    assert all(isinstance(a, StoreOnce) for a in taking)


def test_a_repeated_gui_option_is_one_line_before_qt_starts(capsys):
    with pytest.raises(SystemExit) as raised:
        launcher_main(["gui", "--env", "frozen_lake", "--env", "dam", "--screenshot", "x.png"])
    err = capsys.readouterr().err
    assert raised.value.code == 2 and err.count("\n") == 1
    assert (
        "explaincheck gui: --env takes one value and was given twice: frozen_lake, then dam" in err
    )

"""The undefined-constants dialog accepts a value exactly when ``--const`` would type it so."""

from __future__ import annotations

import pytest

from explaincheck.core.oracle.program import ProgramConstant
from explaincheck.gui.views.constants_dialog import ConstantsDialog, valid


@pytest.mark.parametrize(
    ("kind", "text", "ok"),
    [
        ("int", " 4 ", True),
        ("int", "4.5", False),
        ("int", "true", False),
        ("double", "4", True),
        ("double", "0.5", True),
        ("double", "False", False),
        ("bool", "TRUE", True),
        ("bool", "1", False),
        ("double", "1/3", False),
    ],
)
def test_a_value_is_valid_for_its_type(kind, text, ok):
    assert valid(ProgramConstant("N", kind, None, None), text) is ok


def test_ok_is_enabled_only_when_every_field_is_valid(qtbot):
    constants = [ProgramConstant(n, t, None, None) for n, t in (("N", "int"), ("p", "double"))]
    dialog = ConstantsDialog(constants, {"N": "4"})
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    assert not ok.isEnabled()
    dialog.fields["p"].setText("0.25")
    assert ok.isEnabled()
    dialog.fields["N"].setText("four")
    assert not ok.isEnabled()

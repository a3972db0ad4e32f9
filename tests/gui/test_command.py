"""``explaincheck gui`` picks Qt's platform before Qt starts (no abort without a screen)."""

import pytest

from explaincheck.core.errors import ExplaincheckError
from explaincheck.gui.command import choose_platform


def test_screenshot_without_a_display_renders_offscreen():
    environ: dict[str, str] = {}
    choose_platform(True, environ)
    assert environ == {"QT_QPA_PLATFORM": "offscreen"}


def test_a_window_without_a_display_is_a_clear_error():
    with pytest.raises(ExplaincheckError, match="no display"):
        choose_platform(False, {})


def test_an_existing_display_or_platform_is_left_alone():
    for environ in ({"DISPLAY": ":0"}, {"WAYLAND_DISPLAY": "w"}, {"QT_QPA_PLATFORM": "xcb"}):
        before = dict(environ)
        choose_platform(False, environ)
        assert environ == before

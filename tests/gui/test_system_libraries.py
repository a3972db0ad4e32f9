"""The X11 libraries of Qt's xcb plugin are checked before Qt starts (Qt aborts without them)."""

from __future__ import annotations

import pytest

from explaincheck.gui.support.system_libraries import (
    XCB_LIBRARIES,
    loadable,
    missing_packages,
    uses_xcb,
    xcb_problem,
)

X11 = {"DISPLAY": ":0"}


def test_missing_libraries_give_one_apt_get_line():
    gone = {"libxcb-cursor.so.0", "libxcb-keysyms.so.1"}
    problem = xcb_problem(X11, can_load=lambda soname: soname not in gone, platform="linux")
    assert problem is not None
    assert problem.endswith("sudo apt-get install libxcb-cursor0 libxcb-keysyms1")
    assert "\n" not in problem
    assert xcb_problem(X11, can_load=lambda soname: True, platform="linux") is None


def test_only_the_xcb_platform_is_checked():
    nothing = lambda soname: False  # noqa: E731 - every library missing
    assert uses_xcb({"DISPLAY": ":0"}, "linux")
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb"}, "linux")
    assert not uses_xcb({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, "linux")
    assert not uses_xcb({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not uses_xcb({"DISPLAY": ":0"}, "darwin")
    assert xcb_problem({"QT_QPA_PLATFORM": "offscreen"}, can_load=nothing) is None
    packages = missing_packages(nothing)
    assert packages[:3] == ["libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"]
    assert len(packages) == len(XCB_LIBRARIES)


def test_the_loader_is_asked_for_real():
    assert loadable("libc.so.6")
    assert not loadable("libexplaincheck-no-such-library.so.0")


def test_gui_names_the_missing_packages_and_exits_2(tmp_path):
    """Where this machine lacks one of them, ``gui`` on X11 says which, instead of Qt's abort."""
    import os
    import subprocess
    import sys

    missing = missing_packages()
    if not missing:
        pytest.skip("every xcb library is installed here")
    environ = dict(os.environ, QT_QPA_PLATFORM="xcb", DISPLAY=":99")
    environ["EXPLAINCHECK_SETTINGS"] = str(tmp_path / "settings.ini")
    result = subprocess.run(
        [sys.executable, "-m", "explaincheck.gui.launcher", "gui"],
        capture_output=True,
        text=True,
        timeout=60,
        env=environ,
    )
    assert result.returncode == 2
    assert f"sudo apt-get install {' '.join(missing)}" in result.stderr
    assert "Traceback" not in result.stderr and "Aborted" not in result.stderr

"""The X11 libraries Qt's xcb platform plugin loads, checked before Qt starts.

Without one of them Qt prints a long plugin message and aborts the process (no Python error to
catch), so ``explaincheck gui`` asks the dynamic loader first and names the one ``apt-get``
line that installs what is missing. Nothing here imports Qt.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable, Mapping

# (shared object the xcb plugin links against, the Debian/Ubuntu package that ships it)
XCB_LIBRARIES = (
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxcb-image.so.0", "libxcb-image0"),
    ("libxcb-render-util.so.0", "libxcb-render-util0"),
    ("libxcb-shape.so.0", "libxcb-shape0"),
    ("libxcb-randr.so.0", "libxcb-randr0"),
    ("libxcb-xkb.so.1", "libxcb-xkb1"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
)


def loadable(soname: str) -> bool:
    """Whether the dynamic loader finds and opens ``soname`` (as Qt's plugin would)."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def uses_xcb(environ: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether Qt will start its xcb (X11) plugin: on Linux, when asked for, or by default
    on an X display without a Wayland one."""
    if not platform.startswith("linux"):
        return False
    asked = environ.get("QT_QPA_PLATFORM", "")
    if asked:
        return asked.split(":")[0].split(";")[0] == "xcb"
    return bool(environ.get("DISPLAY")) and not environ.get("WAYLAND_DISPLAY")


def missing_packages(can_load: Callable[[str], bool] = loadable) -> list[str]:
    """The packages whose libraries the loader cannot open, in the order above."""
    return [package for soname, package in XCB_LIBRARIES if not can_load(soname)]


def xcb_problem(
    environ: Mapping[str, str],
    can_load: Callable[[str], bool] = loadable,
    platform: str = sys.platform,
) -> str | None:
    """One line naming the missing libraries and the command that installs them, or None."""
    if not uses_xcb(environ, platform):
        return None
    missing = missing_packages(can_load)
    if not missing:
        return None
    return (
        "the window needs X11 libraries that are not installed ("
        + ", ".join(missing)
        + "); install them with: sudo apt-get install "
        + " ".join(missing)
    )

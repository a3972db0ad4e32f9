"""``explaincheck gui``: open the desktop application (registered by ``gui/launcher.py``).

PySide6 is imported only inside ``run``, so ``explaincheck --help`` and every other sub-command
work without Qt loaded.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import MutableMapping

from explaincheck.core.cli.property_option import add_property_argument, check_goal_and_property
from explaincheck.core.errors import ExplaincheckError

NAME = "gui"
HELP = """Open the desktop application

examples:
  explaincheck gui
  explaincheck gui --env frozen_lake
  explaincheck gui --env my_model.prism --db results.sqlite
  explaincheck gui --env wolf_goat_cabbage --screenshot window.png --view graph
  explaincheck gui --env frozen_lake --screenshot small.png --size 1366x768 --view campaign
  explaincheck gui --env model.prism --const N=4 --goal done --unsafe crashed
"""

VIEWS = ("graph", "campaign", "results", "report", "teach", "workbench")


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1600x1000, not {text!r}") from None
    if width < 200 or height < 200:
        raise argparse.ArgumentTypeError("size must be at least 200x200")
    return width, height


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", metavar="ENV|MODEL", help="built-in environment id or PRISM file")
    parser.add_argument("--db", metavar="F", help="results database to browse")
    parser.add_argument(
        "--screenshot",
        metavar="PNG",
        help="open what is given, wait until the views have rendered, save the window, exit",
    )
    parser.add_argument("--view", choices=VIEWS, help="tab to show first (default: graph)")
    parser.add_argument(
        "--policy", metavar="FILE", help="policy table to load once the model's oracle is built"
    )
    parser.add_argument(
        "--size", type=_size, metavar="WxH", help="window size (default for screenshots: 1600x1000)"
    )
    parser.add_argument(
        "--const", default="", metavar="N=V,...", help="constant values, e.g. N=3,p=0.5"
    )
    parser.add_argument("--goal", default="", help="goal label (default: the environment's)")
    parser.add_argument("--unsafe", default="", help="unsafe label (default: the environment's)")
    add_property_argument(parser)  # the Model panel's property, as run --property takes it


def choose_platform(screenshot: bool, environ: MutableMapping[str, str]) -> None:
    """Pick Qt's platform before Qt starts: a screenshot needs no screen (offscreen), and a
    window without any display is a clear error instead of Qt's abort."""
    if environ.get("QT_QPA_PLATFORM") or environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return
    if screenshot:
        environ["QT_QPA_PLATFORM"] = "offscreen"
        return
    raise ExplaincheckError(
        "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); use "
        "--screenshot PNG to render without a screen, or run under a desktop or Xvfb"
    )


def run(args: argparse.Namespace) -> int:
    from explaincheck.gui.support.system_libraries import xcb_problem

    check_goal_and_property(args.goal, args.property)
    choose_platform(bool(args.screenshot), os.environ)
    trouble = xcb_problem(os.environ)  # Qt would abort the process without them
    if trouble:
        raise ExplaincheckError(trouble)
    try:
        from explaincheck.gui.app import run as run_gui
    except ImportError as error:
        raise ExplaincheckError(
            f"the desktop application needs PySide6 and qasync ({error})"
        ) from None
    return run_gui(
        env=args.env,
        db=args.db,
        screenshot=args.screenshot,
        view=args.view,
        size=args.size,
        policy=getattr(args, "policy", None),
        model={
            "constants": args.const,
            "goal_label": args.goal,
            "unsafe_label": args.unsafe,
            "property": args.property or "",
        },
    )

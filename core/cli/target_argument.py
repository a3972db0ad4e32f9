"""``--goal`` and ``--unsafe`` as argparse types: an empty text or one past the stated size is
one line at parse time, before anything is built (``oracle.storm.targets.check_target_text``).

Why at parse time: ``args.goal or "goal"`` read an empty ``--goal ''`` as the label "goal", and
a huge expression reached Storm's parser (a crash, a 180 KB error line)."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def target_text(role: str) -> Callable[[str], str]:
    """The argparse type of ``--goal`` (``role`` "goal") or ``--unsafe`` ("unsafe")."""

    def checked(text: str) -> str:
        from explaincheck.core.errors import ModelError
        from explaincheck.core.oracle.storm.targets import check_target_text

        try:
            check_target_text(text, role)
        except ModelError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        return text

    checked.__name__ = role
    return checked


def add_target_arguments(parser: argparse.ArgumentParser, default: str) -> None:
    """``--goal`` and ``--unsafe``, checked, each defaulting to ``default`` ("the environment's",
    or for a bare model file its labels ``goal`` and ``unsafe`` when ``default`` is "")."""
    for role in ("goal", "unsafe"):
        parser.add_argument(
            f"--{role}",
            type=target_text(role),
            default=None,
            help=f"{role} label or PRISM expression, e.g. 's1=12 & s2=12'"
            f" (default: {default or role})",
        )

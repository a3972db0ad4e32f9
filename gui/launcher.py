"""The ``explaincheck`` console script: core's command line plus the ``gui`` sub-command.

This is the composition root: core's CLI knows nothing of the GUI (the layering rule), so the
desktop application's sub-command is added here. Nothing is imported from Qt until ``gui`` runs.
"""

from __future__ import annotations

import sys

from explaincheck.core.cli.main import main as core_main

GUI_SUBCOMMAND = {"gui": ("explaincheck.gui.command", "open the desktop application")}


def main(argv: list[str] | None = None) -> int:
    return core_main(argv, extra=GUI_SUBCOMMAND)


if __name__ == "__main__":
    sys.exit(main())

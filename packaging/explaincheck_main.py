"""Entry point of the frozen application (PyInstaller bundle built by packaging/explaincheck.spec).

The bundle's executable takes the same sub-commands as the ``explaincheck`` command of a pip
install (``explaincheck oracle frozen_lake``, ``explaincheck gui --screenshot out.png``, ...).
Started without arguments (a double-click, a desktop menu entry) it opens the window.

``multiprocessing.freeze_support()`` must come first: the oracle runs Storm in a ``spawn`` child
process, which in a frozen program is this very executable started again with multiprocessing's
own arguments; freeze_support recognises them, runs the child's work and exits, instead of
letting the command line parse them.
"""

from __future__ import annotations

import multiprocessing
import sys


def main(argv: list[str] | None = None) -> int:
    from explaincheck.gui.launcher import main as cli_main

    args = list(sys.argv[1:] if argv is None else argv)
    return cli_main(args or ["gui"])


if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())

"""The ``explaincheck`` command: one sub-command per module in this package.

Each sub-command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args)``
and is registered by one line in ``SUBCOMMANDS``. User errors (``ExplaincheckError``) print one
line on stderr and exit with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from explaincheck.core.errors import ExplaincheckError

# Registration: module names under explaincheck.core.cli (imported lazily, so ``explaincheck
# oracle`` does not pay for pandas or the GUI).
SUBCOMMANDS = {
    "envs": "envs_command",
    "oracle": "oracle_command",
    "run": "run_command",
    "results": "results_command",
    "report": "report_command",
    "gui": "gui_command",
}

# One-line help per sub-command, kept here so ``explaincheck --help`` needs no imports.
SUMMARIES = {
    "envs": "list the built-in environments",
    "oracle": "model-check a PRISM model and print the exact oracle",
    "run": "run a test campaign against LLMs and store graded results",
    "results": "list stored executions",
    "report": "tables and figures from stored results",
    "gui": "open the desktop application",
}


def build_parser(selected: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="explaincheck",
        description="Test LLM explainers of MDP policies against an exact model-checking oracle.",
        epilog="examples:\n  explaincheck envs\n  explaincheck oracle frozen_lake\n"
        "  explaincheck run --env frozen_lake --llm random --llm oracle --selection both\n"
        "  explaincheck report --db results.sqlite --format html\n  explaincheck gui\n\n"
        "Run 'explaincheck COMMAND --help' for the options of a command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in SUMMARIES.items():
        if selected is not None and name != selected:
            sub.add_parser(name, help=summary)
            continue
        module = importlib.import_module(f"explaincheck.core.cli.{SUBCOMMANDS[name]}")
        sub_parser = sub.add_parser(
            name,
            help=summary,
            description=module.HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(sub_parser)
        sub_parser.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    selected = next((a for a in argv if a in SUBCOMMANDS), None)
    parser = build_parser(selected)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0 if not argv else 2
    try:
        return int(args._run(args) or 0)
    except ExplaincheckError as error:
        print(f"explaincheck {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"explaincheck {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. ``explaincheck oracle ... | head``: the reader left
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes at exit
        return 0


if __name__ == "__main__":
    sys.exit(main())

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
from collections.abc import Sequence
from typing import Any

from explaincheck.core.cli.parser import OneLineParser
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.terminal_text import safe_terminal

# Registration: sub-command -> (module, one-line help). Modules are imported lazily, so
# ``explaincheck oracle`` does not pay for pandas. The ``gui`` sub-command is not listed here:
# core never refers to the GUI; ``explaincheck.gui.launcher`` (the console script) adds it.
Registry = dict[str, tuple[str, str]]
SUBCOMMANDS: Registry = {
    "envs": ("explaincheck.core.cli.envs_command", "list the built-in environments"),
    "oracle": (
        "explaincheck.core.cli.oracle_command",
        "model-check a PRISM model and print the exact oracle",
    ),
    "run": (
        "explaincheck.core.cli.run_command",
        "run a test campaign against LLMs and store graded results",
    ),
    "results": ("explaincheck.core.cli.results_command", "list stored executions"),
    "report": ("explaincheck.core.cli.report_command", "tables and figures from stored results"),
    "faults": (
        "explaincheck.core.cli.faults_command",
        "fault detection with known-flaw explainers",
    ),
    "regrade": (
        "explaincheck.core.cli.regrade_command",
        "grade stored replies again under another satisfy rule (no LLM asked)",
    ),
    "policy": (
        "explaincheck.core.cli.policy_command",
        "use an LLM as a policy and measure its exact value loss",
    ),
    "selfcheck": (
        "explaincheck.core.cli.selfcheck_command",
        "does an LLM explain its own policy? say-do agreement and self-explanation",
    ),
    "sweep": (
        "explaincheck.core.cli.sweep_command",
        "sweep a constant: V and A* against it, and where the best action flips",
    ),
    "merge": (
        "explaincheck.core.cli.merge_command",
        "merge the databases of shards or copies of one campaign",
    ),
    "compare": (
        "explaincheck.core.cli.compare_command",
        "compare two campaigns case by case; exit 1 on a regression",
    ),
    "bench": ("explaincheck.core.cli.bench_command", "the frozen benchmark: export, grade, run"),
    "import-inspect": (
        "explaincheck.core.cli.import_inspect_command",
        "bring Inspect AI logs of explaincheck/bench into a results file",
    ),
    "share": ("explaincheck.core.cli.share_command", "one self-contained HTML file of results"),
    "plugins": (
        "explaincheck.core.cli.plugins_command",
        "the installed plugin packages; 'plugins check DIST' checks one",
    ),
    "split": (
        "explaincheck.core.cli.split_command",
        "split a results file's cases into train and held-out (no shared neighbourhood)",
    ),
    "train-set": (
        "explaincheck.core.cli.train_set_command",
        "training data with exact labels from a split's train part (SFT, OpenAI chat, DPO)",
    ),
}


class _Version(argparse.Action):
    """``-V``/``--version``: the installed version, read only when asked (the store module it
    comes from would otherwise slow every command's start)."""

    def __init__(self, option_strings: list[str], dest: str, **_kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        from explaincheck.core.store import software_version

        print(f"explaincheck {software_version()}")
        parser.exit()


def build_parser(
    selected: str | None = None, subcommands: Registry | None = None
) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="explaincheck",
        description="Test LLM explainers of MDP policies against an exact model-checking oracle.",
        epilog="examples:\n  explaincheck envs\n  explaincheck oracle frozen_lake\n"
        "  explaincheck run --env frozen_lake --llm random --llm oracle --selection both\n"
        "  explaincheck report --db results.sqlite --format html\n  explaincheck gui\n\n"
        "Run 'explaincheck COMMAND --help' for the options of a command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, summary) in (subcommands or SUBCOMMANDS).items():
        if selected is not None and name != selected:
            sub.add_parser(name, help=summary)
            continue
        module = importlib.import_module(module_name)
        sub_parser = sub.add_parser(
            name,
            help=summary,
            description=module.HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(sub_parser)
        sub_parser.set_defaults(_run=module.run, _parser=sub_parser)
    return parser


def main(argv: list[str] | None = None, *, extra: Registry | None = None) -> int:
    """Run one sub-command; ``extra`` adds sub-commands defined outside core (the GUI's)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    subcommands = {**SUBCOMMANDS, **(extra or {})}
    selected = next((a for a in argv if a in subcommands), None)
    parser = build_parser(selected, subcommands)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the sub-command's usage, not the top level's ("explaincheck [-h] COMMAND")
        getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0 if not argv else 2
    try:
        return int(args._run(args) or 0)
    except ExplaincheckError as error:  # may quote untrusted text (a template, a file name)
        print(safe_terminal(f"explaincheck {args.command}: {error}"), file=sys.stderr)
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

"""``explaincheck import-inspect``: Inspect logs of ``explaincheck/bench`` into a results file
(``core.bench.inspect_import``), so report, compare and the window read an Inspect run."""

from __future__ import annotations

import argparse

from explaincheck.core.terminal_text import safe_terminal

NAME = "import-inspect"
HELP = """Bring Inspect AI logs of the task explaincheck/bench into a results file.

Each log becomes one LLM, named inspect:<the Inspect model> (e.g. inspect:openai/gpt-4o-mini);
its replies are graded by explaincheck's grader, and any sample whose Inspect verdict differs
is told. The question set is the one the log names (-T dir=...), else the default set; give
it with --bench DIR otherwise. Needs the optional extra inspect.

examples:
  inspect eval explaincheck/bench --model ollama/gemma3:1b --log-dir logs
  explaincheck import-inspect logs --db results.sqlite
  explaincheck report --db results.sqlite
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log_dir", metavar="LOG_DIR", help="Inspect log folder (or one log file)")
    parser.add_argument("--db", default="results.sqlite", help="results file (results.sqlite)")
    parser.add_argument("--bench", metavar="DIR", default=None, help="the question set's folder")


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.bench.inspect_import import import_logs

    for found in import_logs(args.log_dir, args.db, args.bench):
        same = (
            "all verdicts as Inspect's"
            if not found.disagreements
            else (
                f"{len(found.disagreements)} verdicts differ from Inspect's"
                f" (first: {found.disagreements[0]})"
            )
        )
        print(safe_terminal(f"{found.llm}: {found.executions} executions from {found.log}; {same}"))
    return 0

"""``explaincheck share``: one self-contained HTML file of a results file (``core.share``)."""

from __future__ import annotations

import argparse

NAME = "share"
HELP = """Write one self-contained HTML file of a results file: it opens from file:// with no
server and makes no network request (its Content Security Policy forbids it). It shows
explaincheck report's Table 1 of every execution, the failures, filters by LLM, category, verdict
and stability (they choose the executions listed, not Table 1), and for each case the prompt,
every reply, the parsed answer, the oracle's values and the states' neighbourhood in the MDP.
campaign.html#case=<id> opens one case.

examples:
  explaincheck share --db results.sqlite --out campaign.html
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default="results.sqlite", help="results file (results.sqlite)")
    parser.add_argument("--out", default="campaign.html", help="HTML file to write")


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.share.page import write_share

    path, size = write_share(args.db, args.out)
    print(f"{path}: {size / 1e6:.2f} MB")
    return 0

"""``explaincheck merge``: join the databases of shards (``run --shard I/N``) or of copies of one
campaign into one, refusing databases of differing campaigns.

Why a command of its own: shards run as separate jobs (a Slurm array, a Kubernetes indexed job)
and each writes its own SQLite file; the analysis wants one table.
"""

from __future__ import annotations

import argparse

NAME = "merge"
HELP = """Merge results databases of one campaign (shards or resumed copies) into a new one.

Every campaign in the inputs must be the same campaign: same environment, model hash, LLMs,
categories, budget, selection, seed, repeats and grading (the first difference is named and
nothing is written). Each execution is kept once: a graded row wins over an error row. Where the
inputs hold graded versions that disagree (another verdict or reply: copies resumed on two
machines), the merge says how many and settles them by --on-conflict:
  newest                the version that finished last (the default; equal times are broken
                        by the rows' content, so the order of the inputs never matters)
  fail                  write nothing and name the first conflict (exit status 2)
  keep-both-as-repeats  keep every differing version, the others as added repeats of the case
The reply caches are merged too.

examples:
  explaincheck merge shard1.sqlite shard2.sqlite shard3.sqlite --out all.sqlite
  explaincheck merge machine1.sqlite machine2.sqlite --out all.sqlite --on-conflict fail
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="DB", help="results databases to merge")
    from explaincheck.core.campaign.merge_conflicts import DEFAULT_RULE, RULES

    parser.add_argument("--out", required=True, metavar="DB", help="the new merged database")
    parser.add_argument(
        "--on-conflict",
        choices=RULES,
        default=DEFAULT_RULE,
        help=f"how executions the inputs disagree on are settled ({DEFAULT_RULE})",
    )


def run(args: argparse.Namespace) -> int:
    from explaincheck.core import api
    from explaincheck.core.terminal_text import safe_terminal

    report = api.merge(args.inputs, args.out, args.on_conflict)
    for line in report.lines(args.out):
        print(safe_terminal(line))
    return 0

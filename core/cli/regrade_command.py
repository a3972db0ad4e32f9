"""``explaincheck regrade``: grade the stored replies of a results database again under another
satisfy rule, without asking any LLM again (``core.campaign.regrade``).

Why: the satisfy rule and its tolerance are a judgement a reader may not share; re-grading
costs seconds where asking again costs the whole campaign.
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import TYPE_CHECKING

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.terminal_text import safe_terminal

if TYPE_CHECKING:
    from explaincheck.core.campaign.regrade import RegradeSummary
    from explaincheck.core.taxonomy.base import GradingSettings

NAME = "regrade"
HELP = """Grade every stored reply of a results database again under another satisfy rule.

No LLM is asked: the stored replies are graded against the oracle of their own model (rebuilt
from the campaign's settings, usually from the oracle cache). The database is changed in place,
in one transaction; error rows have no reply and stay as they are. Prints how many verdicts
changed, per LLM, category and change.

examples:
  explaincheck regrade results.sqlite --satisfy-rule half
  explaincheck regrade --db results.sqlite --satisfy-rule half   (--db as in the other commands)
  explaincheck regrade results.sqlite --satisfy-rule absolute --satisfy-tolerance 0.1
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from explaincheck.core.cli.run_arguments import add_satisfy_arguments

    parser.add_argument(
        "db", nargs="?", default=None, help="results database to re-grade (changed in place)"
    )
    parser.add_argument(
        "--db", dest="db_option", metavar="DB", default=None, help="the same, as an option"
    )
    add_satisfy_arguments(parser)


def database(args: argparse.Namespace) -> str:
    """``regrade DB`` or ``regrade --db DB`` (the other commands' spelling); not two."""
    given = [db for db in (args.db, args.db_option) if db]
    if not given:
        raise ExplaincheckError("which database? regrade DB or regrade --db DB")
    if len(given) == 2 and given[0] != given[1]:
        raise ExplaincheckError(f"two databases given ({given[0]} and {given[1]}): give one")
    return given[0]


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.campaign.regrade import regrade
    from explaincheck.core.taxonomy.base import GradingSettings

    if not 0.0 <= args.satisfy_tolerance <= 1.0:
        raise ExplaincheckError(f"--satisfy-tolerance {args.satisfy_tolerance:g} is not in [0, 1]")
    settings = GradingSettings(args.satisfy_rule, args.satisfy_tolerance)
    summary = regrade(database(args), settings)
    print(safe_terminal("\n".join(summary_lines(summary, settings))))
    return 0


def rule_text(satisfy_rule: str, satisfy_tolerance: float) -> str:
    if satisfy_rule == "half":
        return "the half rule (p and V on the same side of 1/2)"
    return f"the absolute rule (|p - V| <= {satisfy_tolerance:g})"


def summary_lines(summary: RegradeSummary, settings: GradingSettings) -> list[str]:
    """What a re-grade changed: the totals, then one line per LLM, category and change."""
    rule = rule_text(settings.satisfy_rule, settings.satisfy_tolerance)
    lines = [
        f"{summary.graded} stored replies graded again under {rule};"
        f" {summary.changed} changed verdict."
    ]
    groups = Counter((c.llm, c.category, c.before, c.after) for c in summary.changes)
    for (llm, category, before, after), count in sorted(groups.items()):
        lines.append(f"  {llm} · {category}: {before} -> {after} ×{count}")
    return lines

"""``explaincheck selfcheck``: does an LLM explain its own behaviour? Act, say, explain."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from explaincheck.core import json_output
from explaincheck.core.errors import ExplaincheckError

NAME = "selfcheck"
HELP = """Does an LLM explain its own behaviour? In three steps, all stored in --db (the same
command resumes a stopped check):

  act      ask it for its policy as `explaincheck policy` does (at most --budget states) and
           solve the chain that policy induces: its exact value loss;
  say      at the states it acted in, ask it the best-action (in other words than the act
           question), worst-action and ranking questions, graded against the oracle;
  explain  ask it the policy questions (policy_reach, policy_optimal, policy_better,
           policy_regret; at most --budget per category) about its own policy, graded against
           its induced chain, and the same questions about the optimal and the uniform random
           policy as controls.

It prints the say-do agreement (the share of states where the action it calls best is one it
takes) with a Wilson 95% interval and, of the disagreements, how often the saying and how often
the doing was right; its accuracy on its own policy against the two controls (also
chance-corrected, with paired tests over the same questions); its value loss beside its
best-action score. The value loss is its own: where it gave no choice (a state not asked
within --budget, or a reply that named no action) the loss is given as the interval over every
choice there, one number when those states cannot change it; the default (a uniform random
choice) fills them only for the loss printed beside it. docs/method.md ("Self-check") gives the
rules.

examples:
  explaincheck selfcheck --env frozen_lake --llm oracle --db self.sqlite
  explaincheck selfcheck --env frozen_lake --llm local:smollm2-135m --budget 5 --db s.sqlite --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from explaincheck.core.campaign.selfcheck import DEFAULT_BUDGET
    from explaincheck.core.cli.policy_command import add_model_arguments

    parser.add_argument("--env", required=True, metavar="ENV|MODEL", help="environment or .prism")
    parser.add_argument("--llm", required=True, metavar="SPEC", help="the LLM checked")
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help=f"states asked for its policy, and questions per policy category ({DEFAULT_BUDGET})",
    )
    parser.add_argument("--db", required=True, help="results database (SQLite)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_model_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.analysis.selfcheck import selfcheck_figures
    from explaincheck.core.campaign.session import CampaignSession
    from explaincheck.core.cli.policy_command import open_for_policy
    from explaincheck.core.workspace.selfcheck import run_selfcheck

    campaign, environment, oracle, settings = open_for_policy(args)

    def on_step(step: str, questions: int) -> None:
        what = {"act": f"asking for its policy (at most {questions} states)"}.get(
            step, f"{questions} questions"
        )
        print(f"explaincheck selfcheck: {step}: {what}", file=sys.stderr)

    with CampaignSession.open(args.db, settings) as session:
        done = asyncio.run(
            run_selfcheck(
                session, campaign, environment, oracle, budget=args.budget, on_step=on_step
            )
        )
        if done is None:
            raise ExplaincheckError("the self-check was stopped; run the same command to resume")
        rows = session.store.executions(llm=campaign.llms[0])
    figures = selfcheck_figures(rows, oracle, campaign.llms[0], environment.id or args.env)
    if figures is None:
        raise ExplaincheckError(f"{campaign.llms[0]} gave no readable reply to the act questions")
    data = figures.to_json()
    if args.json:
        json_output.write(data, sys.stdout, default=_plain)
    else:
        from explaincheck.core.analysis.selfcheck import figures_table
        from explaincheck.core.plural import counted

        table = figures_table(figures)
        print(f"environment     {figures.environment}")
        print(
            f"llm             {figures.llm} ({counted(figures.acted, 'state')} acted in;"
            f" {counted(figures.defaulted, 'decision state')} it gave no choice at, filled by"
            f" the default: {figures.default})"
        )
        width = max(len(str(f)) for f in table["figure"])
        for name, value in zip(table["figure"], table[figures.llm], strict=True):
            print(f"{name:<{width}}  {value}")
    return 0


def _plain(value: Any) -> Any:
    """NaN-free JSON: numpy numbers as Python numbers."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")

"""``explaincheck policy``: an LLM used as a policy, measured by its exact value loss."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from explaincheck.core import json_output
from explaincheck.core.cli.property_option import add_property_argument, check_goal_and_property
from explaincheck.core.cli.target_argument import add_target_arguments
from explaincheck.core.errors import ExplaincheckError

NAME = "policy"
HELP = """Use an LLM as a policy: ask it the best-action question in the initial state and in
every state its own choices lead to (breadth first, most likely first, at most --budget states;
the rest get --policy-default), solve the Markov chain that policy induces, and compare
V^LLM(s0) with V*(s0): the exact value loss, the states where its choices lose most
(reach-weighted) and its best-action score on the states asked. Replies are stored in --db and
cached like a campaign's: the same command resumes. The random answerer counts as the uniform
policy (the distribution of its draw), so its loss is the uniform policy's; the oracle's is 0.

examples:
  explaincheck policy --env frozen_lake --llm random
  explaincheck policy --env wolf_goat_cabbage --llm local:gemma3-270m --budget 10 --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", required=True, metavar="ENV|MODEL", help="environment or .prism")
    parser.add_argument("--llm", required=True, metavar="SPEC", help="the LLM used as a policy")
    parser.add_argument(
        "--budget", type=int, default=100, help="states asked at most (100); the rest: default"
    )
    parser.add_argument(
        "--db", default="policy.sqlite", help="results database (default: policy.sqlite)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--policy-default",
        choices=["uniform", "optimal"],
        default="uniform",
        help="the choice in states not asked or with an unreadable reply (uniform)",
    )
    add_model_arguments(parser)
    parser.add_argument("--top", type=int, default=5, help="states listed where it loses most (5)")
    parser.add_argument(
        "--write-policy",
        metavar="FILE",
        default=None,
        help="also write the LLM's policy as a table, CSV or JSON as FILE's name says (.csv,"
        " .json), for --policy or the window's Open policy…",
    )


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The model and backend options ``policy`` and ``selfcheck`` share."""
    parser.add_argument("--const", default=None, help="constant values, e.g. N=3,p=0.5")
    add_target_arguments(parser, "the environment's")
    add_property_argument(parser)
    parser.add_argument("--seed", type=int, default=0, help="decoding seed (0)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per reply (120)")
    parser.add_argument("--concurrency", type=int, default=4, help="requests in flight (4)")
    parser.add_argument("--retries", type=int, default=3, help="retries of a failed request (3)")
    parser.add_argument(
        "--ollama-host", action="append", default=[], metavar="URL", help="Ollama server"
    )


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.campaign.policy_questions import ask_policy
    from explaincheck.core.campaign.session import CampaignSession

    if args.write_policy:  # a name that says no table format is refused before asking
        from explaincheck.core.policy.loading import table_format

        table_format(args.write_policy)
    campaign, environment, oracle, settings = open_for_policy(args)

    def on_round(asked: int, batch: int) -> None:
        print(f"explaincheck policy: asking {batch} states ({asked} asked)", file=sys.stderr)

    with CampaignSession.open(args.db, settings) as session:
        found = asyncio.run(
            ask_policy(
                session,
                campaign,
                environment,
                oracle,
                budget=args.budget,
                default=args.policy_default,
                on_round=on_round,
            )
        )
    data = result_json(found, oracle, environment.id or args.env)
    if args.write_policy:
        from explaincheck.core.policy.loading import write_policy

        try:
            write_policy(found.chain.policy, oracle, args.write_policy)
        except OSError as error:
            raise ExplaincheckError(
                f"cannot write the policy to {args.write_policy}: {error.strerror}"
            ) from None
    if args.json:
        json_output.write(data, sys.stdout)
    else:
        print(summary_text(data, args.top))
    return 0


def open_for_policy(args: argparse.Namespace) -> tuple[Any, Any, Any, Any]:
    """The campaign of one LLM (``--llm``, ``--budget``, ``--seed``, the model options), the
    environment, its oracle (opened as ``run`` opens it) and the backend settings: what
    ``policy`` and ``selfcheck`` start from."""
    from explaincheck.core.backends.registry import parse_spec
    from explaincheck.core.campaign.plan import Campaign
    from explaincheck.core.campaign.session import BackendSettings
    from explaincheck.core.workspace.model import ModelChoices, ModelWorkspace

    parse_spec(args.llm)
    check_goal_and_property(args.goal, args.property)
    if args.budget < 1:
        raise ExplaincheckError(f"--budget must be at least 1 (got {args.budget})")
    campaign = Campaign(
        environment=args.env,
        llms=(args.llm,),
        categories=("best_action",),
        budget=args.budget,
        seed=args.seed,
        constants=args.const,
        goal_label=args.goal,
        unsafe_label=args.unsafe,
        property_text=args.property,
    )
    workspace = ModelWorkspace()  # as run opens it: --const replaces, --unsafe must exist
    choices = ModelChoices(
        args.const or "",
        args.goal or "",
        args.unsafe or "",
        strict=True,
        property=args.property or "",
    )
    oracle = asyncio.run(workspace.open_checked(args.env, choices))
    environment = workspace.environment
    assert environment is not None
    settings = BackendSettings(
        ollama_hosts=tuple(args.ollama_host),
        timeout=args.timeout,
        concurrency=args.concurrency,
        retries=args.retries,
    )
    return campaign, environment, oracle, settings


def result_json(found: Any, oracle: Any, environment: str) -> dict[str, Any]:
    """The ``policy --json`` object (DESIGN.md): value_loss, V_policy_initial, V_initial,
    states_asked and one row per state."""
    from explaincheck.core.policy.contract import action_json, infinite_flags, json_number

    chain = found.chain
    s0 = chain.state(chain.initial)
    exact = chain.value_loss_exact
    rows = []
    for state in chain.states:
        rows.append(
            {
                "id": state.id,
                "valuation": oracle.state(state.id).valuation,
                "asked": state.id in found.answers,
                "reply_action": found.answers.get(state.id),
                "action_policy": action_json(state),
                "V_policy": json_number(state.value),
                "V": json_number(state.optimal_value),
                "regret": json_number(state.regret),
                **infinite_flags(V_policy=state.value, V=state.optimal_value, regret=state.regret),
                "visits": state.visits,
                "share": state.share,
                "defaulted": state.defaulted,
            }
        )
    return {
        "environment": environment,
        "llm": found.llm,
        "value_loss": json_number(chain.value_loss),
        "value_loss_exact": str(exact) if exact is not None else None,
        "V_policy_initial": json_number(s0.value),
        "V_initial": json_number(s0.optimal_value),
        **infinite_flags(
            value_loss=chain.value_loss, V_policy_initial=s0.value, V_initial=s0.optimal_value
        ),
        "property": oracle.prop.to_json(),
        "states_asked": len(found.asked),
        "budget": found.budget,
        "unreadable": found.unreadable,
        "default": chain.policy.default,
        "defaulted": len(chain.policy.defaulted),
        "best_action_score": found.best_action_score,
        "best_action_cases": len(found.verdicts),
        "best_action_reach_weighted": found.best_action_reach_weighted,
        "method": chain.method,
        "states": rows,
    }


def summary_text(data: dict[str, Any], top: int = 5) -> str:
    def fmt(value: float | None, name: str = "") -> str:
        if value is None:
            return "∞" if data.get(f"{name}_infinite") else "n/a"
        return f"{value:.4g}"

    exact = f" = {data['value_loss_exact']}" if data["value_loss_exact"] else ""
    lines = [
        f"environment     {data['environment']}",
        f"llm             {data['llm']}",
        f"states asked    {data['states_asked']} (budget {data['budget']}; "
        f"{data['unreadable']} unreadable; {data['defaulted']} states by the default "
        f"{data['default']})",
        f"property        {data['property']['text']}",
        f"V*(s0)          {fmt(data['V_initial'], 'V_initial')}",
        f"V^LLM(s0)       {fmt(data['V_policy_initial'], 'V_policy_initial')}",
        f"value loss      {fmt(data['value_loss'], 'value_loss')}{exact}",
        f"best action     {fmt(data['best_action_score'])} on {data['best_action_cases']} cases"
        f" asked (reach-weighted {fmt(data['best_action_reach_weighted'])})",
        f"solved by       {data['method']}",
    ]
    losing = sorted((r for r in data["states"] if r["share"] > 0), key=lambda r: -r["share"])
    for row in losing[:top]:
        where = ",".join(f"{k}={v}" for k, v in row["valuation"].items())
        lines.append(
            f"loses at        {row['id']} ({where}): share {fmt(row['share'])}, visits"
            f" {fmt(row['visits'])}, regret {fmt(row['regret'], 'regret')}, chose"
            f" {row['action_policy']}"
        )
    return "\n".join(lines)

"""Does an LLM explain its own behaviour? The self-check's three steps run in order into one
results file, for the command line and the window alike (``explaincheck selfcheck``;
docs/method.md, "Self-check").

Why here: like the campaign's run sequence (``workspace/campaign.py``) it strings together
steps of the campaign layer (the LLM-as-policy run ``ask_policy`` and the plans of
``core/campaign/selfcheck.py``) for every front end; the figures are computed from the stored
rows afterwards (``core/analysis/selfcheck.py``), so a stopped check resumes by running the
same call again and loses nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explaincheck.core.campaign.plan import Campaign
from explaincheck.core.campaign.policy_questions import AskedPolicy, ask_policy
from explaincheck.core.campaign.progress import ProgressEvents
from explaincheck.core.campaign.selfcheck import (
    DEFAULT_BUDGET,
    EXPLAIN_CATEGORIES,
    OWN,
    ROLES,
    SAY_CATEGORIES,
    acted_states,
    control_cases,
    control_oracles,
    own_cases,
    say_cases,
    step_campaign,
    step_plan,
)
from explaincheck.core.campaign.session import CampaignSession
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import PolicyOracle, with_policy


@dataclass(frozen=True)
class SelfCheckRun:
    """What the three steps asked: the act step's policy, and per role the oracle with that
    policy attached and the number of questions planned about it."""

    asked: AskedPolicy
    acted: tuple[int, ...]  # states asked with a readable reply (the LLM's own choices)
    say_questions: int
    oracles: dict[str, PolicyOracle]
    questions: dict[str, int]


async def run_selfcheck(
    session: CampaignSession,
    campaign: Campaign,
    environment: Environment,
    oracle: OracleResult,
    *,
    budget: int = DEFAULT_BUDGET,
    on_step: Callable[[str, int], None] | None = None,
    on_round: Callable[[int, int], None] | None = None,
    events: ProgressEvents | None = None,
) -> SelfCheckRun | None:
    """Act, say, explain for ``campaign.llms[0]`` on ``oracle`` (the model without a policy):
    at most ``budget`` states asked for the policy and ``budget`` questions per policy category.
    ``on_step(step, questions)`` hears each step begin; ``on_round`` and ``events`` as for
    ``ask_policy``. None once ``session`` is cancelled: what was stored stays, and the same call
    resumes from there."""

    def step(name: str, questions: int) -> None:
        if on_step is not None:
            on_step(name, questions)

    step("act", budget)
    act = step_campaign(campaign, ("best_action",))
    asked = await ask_policy(
        session, act, environment, oracle, budget=budget, on_round=on_round, events=events
    )
    if session.cancelled:
        return None
    acted = acted_states(asked.asked, asked.chain.policy)
    said = say_cases(oracle, acted, campaign)
    step("say", len(said))
    if said:
        say = step_campaign(campaign, SAY_CATEGORIES)
        await session.run(step_plan(say, environment, oracle, said, "say"), events=events)
        if session.cancelled:
            return None
    oracles = control_oracles(oracle, with_policy(oracle, asked.chain))
    planned = {OWN: own_cases(oracles[OWN], acted, campaign, budget)}
    for role in ROLES[1:]:
        planned[role] = control_cases(planned[OWN], oracles[role], role)
    step("explain", sum(len(cases) for cases in planned.values()))
    explain = step_campaign(campaign, EXPLAIN_CATEGORIES)
    for role in ROLES:
        if planned[role]:
            plan = step_plan(explain, environment, oracles[role], planned[role], f"explain-{role}")
            await session.run(plan, events=events)
            if session.cancelled:
                return None
    counts = {role: len(cases) for role, cases in planned.items()}
    return SelfCheckRun(asked, acted, len(said), oracles, counts)

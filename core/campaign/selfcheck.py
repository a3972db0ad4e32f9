"""The self-check's questions (``explaincheck selfcheck``; docs/method.md, "Self-check"): what
each of its three steps asks, as plans for the campaign session. The steps are run in order by
``core/workspace/selfcheck.py``.

1. **Act**: the LLM is asked for its policy exactly as ``explaincheck policy`` asks
   (``ask_policy``: best-action rows with selection ``policy``) and its induced chain is solved.
2. **Say**: at the states it acted in (asked, with a readable reply) it is asked the preference
   questions ``best_action``, ``worst_action`` and ``ranking`` (selection ``selfcheck-say``).
   The best-action question is asked in its first rephrasing (wording 1): the act prompt *is*
   the wording-0 best-action prompt, so asking it again would return the same (cached) reply and
   say–do agreement would be 1 by construction.
3. **Explain**: the policy questions (``policy_reach``, ``policy_optimal``, ``policy_better``,
   ``policy_regret``) about its own policy, in the wording used for a user's policy, graded
   against its induced chain (selection ``selfcheck-own``); the same questions about the optimal
   policy (``selfcheck-optimal``) and the uniform random policy (``selfcheck-uniform``) are the
   controls. The questions are chosen on its own policy among the states it acted in (budget per
   category, by δ as a campaign does); a control keeps each question that is a question for
   that policy too (a pair its chain ties is none).

Each step is a plan run through the campaign session, so every reply is stored as it is graded,
cached, and the same command resumes a stopped check (a step's plan has its own identity). The
figures are computed from the stored rows alone (``core/analysis/selfcheck.py``), so the report
and the window show them again without asking.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from explaincheck.core.campaign.plan import Campaign, Plan, PlannedExecution, execution_key
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.attach import attach
from explaincheck.core.policy.loading import complete
from explaincheck.core.policy.types import OPTIMAL, UNIFORM, Policy, PolicyOracle
from explaincheck.core.taxonomy.base import PRIORITIZED, TestCase
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import ruled_candidates, select_cases

DEFAULT_BUDGET = 20
SAY_SELECTION = "selfcheck-say"
SAY_CATEGORIES = ("best_action", "worst_action", "ranking")
SAY_WORDINGS = {"best_action": 1}  # the act prompt is wording 0 (see the module docstring)
EXPLAIN_CATEGORIES = ("policy_reach", "policy_optimal", "policy_better", "policy_regret")
OWN = "own"
ROLES = (OWN, OPTIMAL, UNIFORM)  # the LLM's own policy, then the two controls
EXPLAIN_SELECTIONS = {role: f"selfcheck-{role}" for role in ROLES}
STEPS = ("act", "say", "explain")


class _StepPlan(Plan):
    """One step's questions: an identity of its own (``selfcheck/<step>/...``), so a step never
    merges with a campaign of the same settings or with another step."""

    @property
    def identity(self) -> str:
        step = self.notes.get("selfcheck", "")
        return f"selfcheck/{step}/{self.campaign.identity(self.model_hash)}"

    def stored_settings(self) -> dict[str, Any]:
        return {**self.campaign.settings(), "skipped": {}, "caveats": {}, **self.notes}


def acted_states(asked: Iterable[int], policy: Policy) -> tuple[int, ...]:
    """The asked states whose reply defined the choice (not filled by the default)."""
    filled = set(policy.defaulted)
    return tuple(s for s in asked if s not in filled and s in policy.choices)


def say_cases(oracle: OracleResult, acted: tuple[int, ...], campaign: Campaign) -> list[TestCase]:
    """The say questions at the acted states that are cases of each preference category."""
    found: list[TestCase] = []
    where = set(acted)
    for category in SAY_CATEGORIES:
        pool = ruled_candidates(oracle, category, campaign.cases_seed, campaign.rules)
        pool = [c for c in pool if c.states[0] in where]
        if not pool:
            continue
        chosen = select_cases(
            oracle, category, len(pool), PRIORITIZED, campaign.cases_seed, campaign.rules, pool
        )
        wording = SAY_WORDINGS.get(category, 0)
        found.extend(
            replace(c, selection=SAY_SELECTION, index=c.states[0], wording=wording) for c in chosen
        )
    return found


def own_cases(
    own: OracleResult, acted: tuple[int, ...], campaign: Campaign, budget: int
) -> list[TestCase]:
    """The policy questions about the LLM's own policy, every state of each among the acted
    ones, at most ``budget`` per category (top δ; the yes/no category balanced)."""
    found: list[TestCase] = []
    where = set(acted)
    for category in EXPLAIN_CATEGORIES:
        if CATEGORIES[category].not_applicable(own) is not None:
            continue
        pool = ruled_candidates(own, category, campaign.cases_seed, campaign.rules)
        pool = [c for c in pool if where.issuperset(c.states)]
        if not pool:
            continue
        chosen = select_cases(
            own, category, budget, PRIORITIZED, campaign.cases_seed, campaign.rules, pool
        )
        found.extend(replace(c, selection=EXPLAIN_SELECTIONS[OWN]) for c in chosen)
    return found


def control_cases(cases: list[TestCase], oracle: OracleResult, role: str) -> list[TestCase]:
    """``cases`` asked about the policy attached to ``oracle``: each that is a question there
    (its expected answer exists, and a pair is not tied in that chain: a tied pair's oracle
    answer is only a convention), with that policy's class."""
    found = []
    for case in cases:
        category = CATEGORIES[case.category]
        decide = getattr(category, "right_index", None)  # pair categories: refuses a tie
        try:
            category.expected(case, oracle)
            if decide is not None:
                decide(case, oracle)
        except ValueError:
            continue
        positive = case.positive
        truth = getattr(category, "truth", None)
        if positive is not None and truth is not None:
            positive = bool(truth(case, oracle))
        found.append(replace(case, selection=EXPLAIN_SELECTIONS[role], positive=positive))
    return found


def step_plan(
    campaign: Campaign,
    environment: Environment,
    oracle: OracleResult,
    cases: list[TestCase],
    step: str,
) -> Plan:
    """A plan of ``cases`` for ``campaign.llms[0]`` (one execution each, prompts rendered)."""
    llm = campaign.llms[0]
    identity = campaign.identity(oracle.model.content_hash)
    executions = []
    counts: dict[tuple[str, str], int] = {}
    for case in cases:
        prompt = render_prompt(case, oracle, environment)
        key = execution_key(oracle.model.content_hash, llm, case, 0, prompt, identity)
        valuations = tuple(dict(oracle.state(s).valuation) for s in case.states)
        dimension = CATEGORIES[case.category].dimension
        executions.append(PlannedExecution(key, llm, case, 0, prompt, dimension, valuations))
        counts[(case.category, case.selection)] = counts.get((case.category, case.selection), 0) + 1
    return _StepPlan(
        campaign, environment, oracle, tuple(executions), {}, counts, notes={"selfcheck": step}
    )


def control_oracles(oracle: OracleResult, own: PolicyOracle) -> dict[str, PolicyOracle]:
    """Per role the oracle with that policy attached: its own, the optimal scheduler's, the
    uniform random policy."""
    return {
        OWN: own,
        OPTIMAL: attach(oracle, complete(oracle, {}, "optimal policy", OPTIMAL)),
        UNIFORM: attach(oracle, complete(oracle, {}, "uniform random policy", UNIFORM)),
    }


def step_campaign(campaign: Campaign, categories: tuple[str, ...]) -> Campaign:
    return replace(campaign, categories=categories)

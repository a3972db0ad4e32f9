"""An LLM used as a policy: ask it the best-action question state by state, as its own choices
lead, and measure the policy it defines by its exact value loss (docs/method.md, "Policy").

Why breadth first by reach probability: the states that matter are the ones the LLM's own
choices lead to. Round by round, the states that need a decision and that the run can reach
under the choices known so far (undecided states stopping the run) are asked, most likely first,
until none is left or the budget of states is spent; every state left (unasked or unreadable
reply) gets the named default (``uniform`` or ``optimal``), and the report says how many.

The questions are ordinary ``best_action`` test cases (selection ``policy``, index = state id)
run through the campaign runner into a results database, so replies are stored as they come,
cached (a prompt already asked in a campaign is not asked again) and a stopped run resumes.

The random answerer draws one action per prompt; as a policy it stands for the distribution of
that draw, uniform over the actions the prompt offers (every labelled action but the do-nothing
ones, which a best-action question leaves out), so its value loss is exactly that of the
uniform policy over those actions (of every labelled action where a model has no do-nothing
action). The oracle answerer picks an optimal action (the scheduler's choice when it is
optimal), so its loss is 0.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from explaincheck.core.campaign.plan import (
    Campaign,
    Plan,
    PlannedExecution,
    execution_key,
)
from explaincheck.core.campaign.progress import ProgressEvents
from explaincheck.core.campaign.session import CampaignSession
from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.chain import (
    expected_visits,
    induced_rows,
    reach_probability,
    reaching,
    solve_policy,
)
from explaincheck.core.policy.loading import complete, default_choice, needs_choice
from explaincheck.core.policy.stored import POLICY_SELECTION, choice_from_reply
from explaincheck.core.policy.types import UNIFORM, Policy, PolicyChain
from explaincheck.core.store import StoredExecution
from explaincheck.core.taxonomy.base import PASS, TestCase
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES

DEFAULT_BUDGET = 100


@dataclass(frozen=True)
class AskedPolicy:
    """The LLM's policy and what asking for it found."""

    llm: str
    chain: PolicyChain
    asked: tuple[int, ...]  # states asked, in the order asked
    answers: dict[int, str | None]  # the action each asked state's reply named (None: unreadable)
    verdicts: dict[int, str]  # best-action verdict per asked state that is a best-action case
    budget: int
    reach: dict[int, float]  # P^LLM [F s] from s0 for every asked state

    @property
    def best_action_score(self) -> float | None:
        """Share of passing best-action verdicts over the asked states that are cases."""
        if not self.verdicts:
            return None
        return sum(v == PASS for v in self.verdicts.values()) / len(self.verdicts)

    @property
    def best_action_reach_weighted(self) -> float | None:
        """The same, each state weighted by the probability that the LLM's own run visits it
        (visits counts would be infinite where its choices loop)."""
        weights = {s: self.reach.get(s, 0.0) for s in self.verdicts}
        total = sum(weights.values())
        if not total:
            return None
        return sum(w for s, w in weights.items() if self.verdicts[s] == PASS) / total

    @property
    def unreadable(self) -> int:
        return sum(1 for a in self.answers.values() if a is None)


def policy_identity(campaign: Campaign, model_hash: str) -> str:
    """The campaign of one LLM's policy answers on one model: the model (its file, constants
    and labels are in ``model_hash``), the LLM and its decoding seed, nothing else. The state
    budget is left out, so asking for more states (or the same from the window and from
    ``explaincheck policy``) reuses every answer stored before."""
    asked = {"model_hash": model_hash, "llms": list(campaign.llms), "seed": campaign.seed}
    return "policy/" + hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


class _PolicyPlan(Plan):
    """A plan of best-action questions asked for a policy: its own campaign identity, so it
    never merges with a campaign of the same settings."""

    @property
    def identity(self) -> str:
        return policy_identity(self.campaign, self.model_hash)

    def stored_settings(self) -> dict[str, Any]:
        return {**self.campaign.settings(), "policy": True, "skipped": {}, "caveats": {}}


def best_action_case(state_id: int) -> TestCase:
    return TestCase("best_action", (state_id,), 0.0, POLICY_SELECTION, state_id)


def next_states(oracle: OracleResult, known: dict[int, dict[str, Fraction]]) -> list[int]:
    """Undecided decision states the run can reach under the ``known`` choices, most likely
    first (the probability that the run meets them before any other undecided state)."""
    rows: dict[int, dict[int, Any]] = {}
    undecided = set()
    for state in oracle.states:
        if state.is_goal:
            continue
        if needs_choice(state) and state.id not in known:
            undecided.add(state.id)
            continue
        choice = known.get(state.id) or ({next(iter(state.q)): Fraction(1)} if state.q else {})
        row: dict[int, float] = {}
        if choice:
            for action, weight in choice.items():
                for target, p in state.successors[action].items():
                    row[target] = row.get(target, 0.0) + float(weight) * p
        else:
            row = dict(next(iter(state.successors.values()), {}))
        rows[state.id] = row
    if not undecided:
        return []
    goal = {s.id for s in oracle.states if s.is_goal}
    live = reaching(rows, len(oracle.states), goal | undecided) - goal - undecided
    visits = expected_visits(rows, live & set(rows), oracle.model.initial, exact=False)
    met = [(visits.get(s, 0.0), s) for s in undecided if visits.get(s, 0.0) > 0]
    return [s for _, s in sorted(met, key=lambda x: (-x[0], x[1]))]


async def ask_policy(
    session: CampaignSession,
    campaign: Campaign,
    environment: Environment,
    oracle: OracleResult,
    *,
    budget: int = DEFAULT_BUDGET,
    default: str = UNIFORM,
    on_round: Callable[[int, int], None] | None = None,
    events: ProgressEvents | None = None,
) -> AskedPolicy:
    """Ask ``campaign.llms[0]`` for its action state by state (within ``budget`` states) and
    solve the chain of the policy it defines. ``on_round(asked, batch)`` hears each round and
    ``events`` each reply. Once ``session`` is cancelled no further round is asked (the policy
    returned is then that of the states asked so far, the rest by the default)."""
    llm = campaign.llms[0]
    known: dict[int, dict[str, Fraction]] = {}
    asked: list[int] = []
    answers: dict[int, str | None] = {}
    verdicts: dict[int, str] = {}
    unread: set[int] = set()
    cases = {c.states[0] for c in CATEGORIES["best_action"].candidates(oracle)}
    while len(asked) < budget and not session.cancelled:
        frontier = [s for s in next_states(oracle, known) if s not in answers]
        if not frontier:
            break
        batch = frontier[: budget - len(asked)]
        if on_round is not None:
            on_round(len(asked), len(batch))
        rows = await _ask(session, campaign, environment, oracle, batch, events)
        if session.cancelled:  # the batch's missing replies are not the LLM's: ask them later
            batch = [s for s in batch if s in rows]
        for state_id in batch:
            row = rows.get(state_id)
            action = _action_of(row, oracle, state_id)
            answers[state_id] = action
            if row is not None and state_id in cases and row.verdict in ("pass", "fail"):
                verdicts[state_id] = row.verdict
            choice = choice_from_reply(llm, oracle.state(state_id), action)
            if choice:
                known[state_id] = choice
            else:  # unreadable: the default decides, and the run goes on from there
                known[state_id] = default_choice(oracle.state(state_id), default)
                unread.add(state_id)
        asked.extend(batch)
    given = {s: d for s, d in known.items() if s not in unread}
    policy = complete(oracle, given, f"llm:{llm}", default)
    chain = solve_policy(oracle, policy)
    reach = visit_probabilities(oracle, policy, asked)
    return AskedPolicy(llm, chain, tuple(asked), answers, verdicts, budget, reach)


def visit_probabilities(
    oracle: OracleResult, policy: Policy, states: list[int]
) -> dict[int, float]:
    """P^π [F s] from s0 for each of ``states`` (one reachability solve each, in floats)."""
    rows = induced_rows(oracle, policy, exact=False)
    size = len(oracle.states)
    initial = oracle.model.initial
    return {s: float(reach_probability(rows, size, {s}, False)[0][initial]) for s in states}


def _action_of(row: StoredExecution | None, oracle: OracleResult, state_id: int) -> str | None:
    if row is None or not isinstance(row.answer, dict):
        return None
    action = row.answer.get("action")
    return action if action in oracle.state(state_id).q else None


async def _ask(
    session: CampaignSession,
    campaign: Campaign,
    environment: Environment,
    oracle: OracleResult,
    states: list[int],
    events: ProgressEvents | None = None,
) -> dict[int, StoredExecution]:
    """Run the best-action questions of ``states`` and return their stored rows by state."""
    llm = campaign.llms[0]
    executions = []
    identity = policy_identity(campaign, oracle.model.content_hash)
    for state_id in states:
        case = best_action_case(state_id)
        prompt = render_prompt(case, oracle, environment)
        key = execution_key(oracle.model.content_hash, llm, case, 0, prompt, identity)
        valuation = (dict(oracle.state(state_id).valuation),)
        dimension = CATEGORIES["best_action"].dimension
        executions.append(PlannedExecution(key, llm, case, 0, prompt, dimension, valuation))
    plan = _PolicyPlan(
        campaign,
        environment,
        oracle,
        tuple(executions),
        {},
        {("best_action", POLICY_SELECTION): len(states)},
    )
    await session.run(plan, events=events)
    keys: dict[str, int] = {e.key: e.case.states[0] for e in executions}
    found: dict[int, StoredExecution] = {}
    for row in session.store.iter_stored(llm=llm, category="best_action"):
        asked = keys.get(row.exec_key)
        if asked is not None and row.verdict != "error":
            found[asked] = row
    return found

"""The self-check under a reward property (issue 49's "Must show"): on job_shop's expected hours
the oracle acting as a policy loses nothing, the random answerer loses what the uniform policy
loses (its chain solved apart, ``core/policy/chain.py``), in hours, and the figures are strict
JSON. The oracle is the property's exact one assembled from its pieces
(``tests/support/property_oracle.py``); the explain step has no questions, since the policy
questions ask about reaching the goal (docs/method.md §14)."""

from __future__ import annotations

import asyncio
import json

import pytest
from support.property_oracle import property_oracle

from explaincheck.core.analysis.selfcheck import selfcheck_figures
from explaincheck.core.campaign.plan import Campaign
from explaincheck.core.campaign.session import BackendSettings, CampaignSession
from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.policy.chain import solve_policy
from explaincheck.core.policy.loading import complete
from explaincheck.core.policy.types import UNIFORM
from explaincheck.core.workspace.selfcheck import run_selfcheck

BUDGET = 200  # enough to ask every state the optimal policy reaches from the start


@pytest.fixture(scope="module")
def hours():
    env = load_builtin("job_shop")
    prop = env.worded(env.properties["hours"])
    return env, property_oracle(env.model_path, prop, constants=env.constants)


def _figures(tmp_path, env, oracle, llm: str):
    campaign = Campaign("job_shop", (llm,), ("best_action",), budget=BUDGET, property_text="hours")
    with CampaignSession.open(tmp_path / f"{llm}.sqlite", BackendSettings()) as session:
        done = asyncio.run(run_selfcheck(session, campaign, env, oracle, budget=BUDGET))
        assert done is not None
        rows = session.store.executions(llm=llm)
    found = selfcheck_figures(rows, oracle, llm, "job_shop")
    assert found is not None
    json.dumps(found.to_json(), allow_nan=False)
    return found


def test_the_oracle_loses_no_hour_and_random_loses_the_uniform_policys(tmp_path, hours):
    env, oracle = hours
    own = _figures(tmp_path, env, oracle, "oracle")
    assert own.value_loss == 0 and own.value_loss_exact == "0"
    assert own.say_do_agreement == 1.0
    guess = _figures(tmp_path, env, oracle, "random")
    uniform = solve_policy(oracle, complete(oracle, {}, "uniform", UNIFORM))
    assert guess.value_loss == pytest.approx(uniform.value_loss)
    assert guess.value_loss_exact == str(uniform.value_loss_exact)
    assert 0.1 < guess.value_loss < 1  # hours: V*(s0) = 5.37152
    assert guess.questions == 0  # the policy questions do not apply to an expected time

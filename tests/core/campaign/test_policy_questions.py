"""An LLM as a policy: the random answerer's loss is the uniform policy's exactly, the oracle's
is 0, replies are stored and a second run asks nothing again; the JSON contract."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for
from explaincheck.core.campaign.policy_questions import ask_policy, next_states
from explaincheck.core.campaign.session import CampaignSession
from explaincheck.core.cli.main import main
from explaincheck.core.policy.chain import solve_policy
from explaincheck.core.policy.loading import policy_from_callable
from explaincheck.core.store import Store


def _ask(env: str, llm: str, db, budget: int = 100, default: str = "uniform"):
    campaign = Campaign(environment=env, llms=(llm,), categories=("best_action",), budget=budget)
    environment = load_environment(campaign)
    oracle = oracle_for(campaign, environment)
    with CampaignSession.open(db) as session:
        found = asyncio.run(
            ask_policy(session, campaign, environment, oracle, budget=budget, default=default)
        )
    return oracle, found


@pytest.mark.parametrize("env", ["frozen_lake", "wolf_goat_cabbage"])
def test_random_is_the_uniform_policy_and_the_oracle_loses_nothing(env, tmp_path):
    oracle, random_found = _ask(env, "random", tmp_path / "r.sqlite")
    uniform = solve_policy(oracle, policy_from_callable(lambda v: None, oracle, default="uniform"))
    assert random_found.chain.value_loss_exact == uniform.value_loss_exact > 0
    _, oracle_found = _ask(env, "oracle", tmp_path / "o.sqlite")
    assert oracle_found.chain.value_loss_exact == 0
    assert oracle_found.best_action_score == 1.0
    # every state its choices reach was asked; only states it never reaches got the default
    chain = oracle_found.chain
    assert all(chain.state(s).visits == 0 for s in chain.policy.defaulted)


def test_a_small_budget_fills_the_rest_by_the_default(tmp_path):
    oracle, found = _ask("frozen_lake", "oracle", tmp_path / "o.sqlite", budget=2)
    assert found.asked == (oracle.model.initial, found.asked[1]) and len(found.asked) == 2
    assert found.chain.policy.defaulted and found.chain.value_loss > 0  # uniform elsewhere
    _, optimal = _ask("frozen_lake", "oracle", tmp_path / "o.sqlite", budget=2, default="optimal")
    assert optimal.chain.value_loss_exact == 0


def test_replies_are_stored_and_a_second_run_asks_nothing(tmp_path):
    db = tmp_path / "p.sqlite"
    _, first = _ask("frozen_lake", "random", db)
    with Store.open(db, readonly=True) as store:
        rows = store.executions()
    assert len(rows) == len(first.asked)
    assert {r["selection"] for r in rows} == {"policy"} and {r["category"] for r in rows} == {
        "best_action"
    }
    _, second = _ask("frozen_lake", "random", db)
    with Store.open(db, readonly=True) as store:
        assert len(store.executions()) == len(rows)
        assert len(store.campaigns()) == 1
    assert second.chain.value_loss_exact == first.chain.value_loss_exact


def test_frontier_is_ordered_by_reach_probability():
    campaign = Campaign(environment="frozen_lake", llms=("random",))
    oracle = oracle_for(campaign, load_environment(campaign))
    assert next_states(oracle, {}) == [oracle.model.initial]
    from fractions import Fraction

    after = next_states(oracle, {oracle.model.initial: {"down": Fraction(1)}})
    assert len(after) == 2 and oracle.model.initial not in after


def test_policy_json_contract(capsys, tmp_path):
    db = tmp_path / "p.sqlite"
    assert (
        main(["policy", "--env", "frozen_lake", "--llm", "oracle", "--db", str(db), "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["value_loss"] == 0 and data["value_loss_exact"] == "0"
    assert data["V_policy_initial"] == pytest.approx(data["V_initial"]) == pytest.approx(14 / 17)
    assert data["states_asked"] == 11 and len(data["states"]) == 16
    row = data["states"][0]
    assert {"V_policy", "V", "regret", "action_policy", "asked", "share"} <= set(row)


def test_bad_budget_is_one_line(capsys, tmp_path):
    status = main(
        [
            "policy",
            "--env",
            "frozen_lake",
            "--llm",
            "random",
            "--budget",
            "0",
            "--db",
            str(tmp_path / "p.sqlite"),
        ]
    )
    assert status == 2 and "--budget must be at least 1" in capsys.readouterr().err


def test_a_model_without_its_constants_is_one_line(capsys, tmp_path):
    """``policy`` opens its model through the workspace as ``run`` does: --const replaces."""
    gambler = str(Path(__file__).resolve().parents[2] / "models" / "gambler.prism")
    db = str(tmp_path / "p.sqlite")
    args = ["policy", "--env", gambler, "--llm", "oracle", "--db", db, "--json"]
    assert main(args) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("undefined constants N: give their values with --const N=...")
    )
    assert main([*args, "--const", "N=3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["states"]) == 4 and data["value_loss"] == 0


@pytest.mark.slow
def test_gemma_as_a_policy(tmp_path):
    oracle, found = _ask("frozen_lake", "local:gemma3-270m", tmp_path / "g.sqlite", budget=3)
    assert 1 <= len(found.asked) <= 3
    assert 0 <= found.chain.value_loss <= oracle.initial.value
    assert found.chain.policy.defaulted  # the rest of the lake by the uniform default


def test_a_cancelled_session_asks_no_further_round(tmp_path):
    campaign = Campaign("frozen_lake", ("oracle",), ("best_action",), budget=100)
    environment = load_environment(campaign)
    oracle = oracle_for(campaign, environment)
    rounds: list[tuple[int, int]] = []
    with CampaignSession.open(tmp_path / "c.sqlite") as session:
        session.cancel()  # Stop before the first round (the window's Stop)
        found = asyncio.run(
            ask_policy(session, campaign, environment, oracle, on_round=lambda *r: rounds.append(r))
        )
    assert found.asked == () and rounds == []
    assert len(found.chain.policy.defaulted) > 0  # every state by the default, nothing pretended

"""The self-check on Frozen Lake with the reference answerers, whose figures are known: the
oracle says what it does and explains its own policy perfectly at no loss; the random answerer's
say-do agreement is the uniform policy's mass on the action it names (1/4 in every state); the
myopic flaw says and does from the same picture (agreement 1) and explains its own policy worse
than the optimal one. All three steps are stored and a stopped check resumes."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from pathlib import Path

import pytest

from explaincheck.core.analysis.selfcheck import selfcheck_figures
from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for
from explaincheck.core.campaign.selfcheck import EXPLAIN_SELECTIONS, SAY_SELECTION
from explaincheck.core.campaign.session import CampaignSession
from explaincheck.core.cli.main import main
from explaincheck.core.store import Store
from explaincheck.core.workspace.selfcheck import run_selfcheck


def _check(
    llm: str,
    db,
    budget: int = 20,
    stop_at: str | None = None,
    env: str = "frozen_lake",
    constants: str | None = None,
):
    campaign = Campaign(environment=env, llms=(llm,), budget=budget, constants=constants)
    environment = load_environment(campaign)
    oracle = oracle_for(campaign, environment)
    with CampaignSession.open(db) as session:

        def on_step(step: str, questions: int) -> None:
            if step == stop_at:
                session.cancel()

        done = asyncio.run(
            run_selfcheck(session, campaign, environment, oracle, budget=budget, on_step=on_step)
        )
        rows = session.store.executions()
    return oracle, done, selfcheck_figures(rows, oracle, llm, "frozen_lake")


def test_the_oracle_says_what_it_does_and_explains_its_policy_perfectly(tmp_path):
    _, done, figures = _check("oracle", tmp_path / "o.sqlite")
    assert done is not None and figures is not None
    assert figures.say_do_agreement == 1.0 and figures.states == 10  # s0: all four actions tie
    assert figures.saying_right is None and figures.disagreement == 0
    assert figures.value_loss == 0 and figures.value_loss_exact == "0"
    assert figures.best_action_score == 1.0
    data = figures.to_json()
    assert data["self_accuracy"] == data["optimal_accuracy"] == data["random_accuracy"] == 1.0
    assert data["questions"] == done.questions["own"] > 0
    lo, hi = data["say_do_ci"]
    assert 0.6 < lo < 1 and hi == pytest.approx(1.0)  # Wilson on 10 of 10

    # the report's part: one section, the same figures, rebuilt from the file alone
    from explaincheck.core import api
    from explaincheck.core.analysis.report import build_report

    report = build_report(api.results(tmp_path / "o.sqlite", lean=True), only=["selfcheck"])
    (section,) = report.sections
    shown = dict(zip(section.table["figure"], section.table["oracle (frozen_lake)"], strict=True))
    assert shown["say–do agreement"] == "1 [0.722, 1], 10 states"
    assert shown["value loss of its policy"] == "0 = 0"


def test_random_agrees_with_itself_at_the_uniform_mass(tmp_path):
    _, _, figures = _check("random", tmp_path / "r.sqlite")
    assert figures is not None
    # its policy is uniform over the four moves, so whichever it names is taken with 1/4
    assert figures.say_do_agreement == pytest.approx(0.25)
    assert figures.disagreement == pytest.approx(0.75 * figures.states)
    assert figures.value_loss_exact == "476875/589033"  # the uniform policy's loss


def test_random_agrees_at_the_mass_of_the_actions_the_act_question_offered(tmp_path):
    """Issue 51.5: the act question leaves do-nothing actions out (the corridor's wait), so the
    random answerer draws among left and right: its policy is uniform over those two, and its
    say-do agreement at each state is 1/2, not the 1/3 of all three labelled actions."""
    from pathlib import Path

    corridor = str(Path(__file__).parents[2] / "models" / "corridor.prism")
    oracle, _, figures = _check("random", tmp_path / "c.sqlite", env=corridor, constants="TARGET=4")
    assert figures is not None and figures.states >= 1
    assert figures.say_do_agreement == pytest.approx(0.5)
    from explaincheck.core.analysis.selfcheck import stored_policies
    from explaincheck.core.store import Store

    with Store.open(tmp_path / "c.sqlite", readonly=True) as store:
        chain = stored_policies(store.executions(), oracle)["random"][0]
    for state in oracle.states:
        if state.id in chain.policy.choices and "wait" in state.q and len(state.q) == 3:
            assert chain.policy.choices[state.id] == {
                "left": Fraction(1, 2),
                "right": Fraction(1, 2),
            }


def test_the_myopic_flaw_says_what_it_does_and_misjudges_its_own_policy(tmp_path):
    _, _, figures = _check("flaw:myopic:2", tmp_path / "m.sqlite")
    assert figures is not None
    assert figures.say_do_agreement == 1.0  # act and say from the same 2-step picture
    assert figures.value_loss_exact == "14/17"  # its choices never reach the goal
    own, optimal, uniform = (figures.policies[r] for r in ("own", "optimal", "uniform"))
    # the same questions, less those a control's chain ties: every regret of the optimal
    # policy is 0, so its two regret pairs go; the uniform chain ties one pair
    assert (own.questions, optimal.questions, uniform.questions) == (7, 5, 6)
    assert own.accuracy == pytest.approx(5 / 7) and optimal.accuracy == 1.0
    assert uniform.accuracy == pytest.approx(4 / 6) and figures.paired_questions == 5
    with Store.open(tmp_path / "m.sqlite", readonly=True) as store:
        optimal_rows = [
            r for r in store.executions() if r["selection"] == EXPLAIN_SELECTIONS["optimal"]
        ]
    assert optimal_rows and not [r for r in optimal_rows if r["category"] == "policy_regret"]


def test_every_step_is_stored_and_a_stopped_check_resumes(tmp_path):
    db = tmp_path / "s.sqlite"
    _, stopped, _ = _check("random", db, budget=4, stop_at="explain")
    assert stopped is None
    with Store.open(db, readonly=True) as store:
        before = {r["selection"] for r in store.executions()}
    assert before == {"policy", SAY_SELECTION}
    _, done, figures = _check("random", db, budget=4)
    assert done is not None and figures is not None
    with Store.open(db, readonly=True) as store:
        rows = store.executions()
        assert {r["selection"] for r in rows} == {"policy", SAY_SELECTION} | set(
            EXPLAIN_SELECTIONS.values()
        )
        count = len(rows)
    _, again, _ = _check("random", db, budget=4)  # nothing left to ask
    with Store.open(db, readonly=True) as store:
        assert len(store.executions()) == count
    assert again is not None and again.questions == done.questions


def test_say_do_agreement_is_the_policys_mass_on_the_action_it_names(tmp_path):
    """Hand-made rows: a randomised act choice at one state. Said 'up' where the policy takes
    up with 1/3 and down with 2/3: agreement 1/3; of the disagreeing 2/3 the doing was right
    exactly where down is optimal."""
    oracle, _, _ = _check("oracle", tmp_path / "o.sqlite", budget=1)
    state = next(s for s in oracle.states if len(set(s.q.values())) > 1 and not s.is_goal)
    up, down = sorted(state.q, key=lambda a: -state.q[a])[-1], state.best[0]
    base = oracle.model.content_hash
    act = {
        "llm": "x",
        "selection": "policy",
        "category": "best_action",
        "model_hash": base,
        "states": [state.id],
        "verdict": "fail",
    }
    rows = [
        {**act, "answer": {"action": up}},
        {**act, "selection": SAY_SELECTION, "answer": {"action": up}},
    ]
    from explaincheck.core.analysis import selfcheck as figures_module

    chain = figures_module.stored_policies(rows, oracle)["x"][0]
    mixed = {up: Fraction(1, 3), down: Fraction(2, 3)}
    policy = chain.policy.__class__(
        {**chain.policy.choices, state.id: mixed}, "test", chain.policy.default, ()
    )
    found = figures_module._say_do(
        rows,
        oracle,
        chain.__class__(policy, *[getattr(chain, f) for f in _CHAIN[1:]]),
        {state.id},
        base,
    )
    assert found["states"] == 1 and found["say_do_agreement"] == pytest.approx(1 / 3)
    assert found["saying_right"] == 0.0  # it named the worst action
    assert found["doing_right"] == pytest.approx(1.0)  # the other mass is on an optimal action


_CHAIN = ("policy", "states", "exact", "residual", "initial", "method")


def test_selfcheck_json_contract_and_bad_input(capsys, tmp_path):
    db = tmp_path / "c.sqlite"
    code = main(["selfcheck", "--env", "frozen_lake", "--llm", "oracle", "--budget", "3",
                 "--db", str(db), "--json"])  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data)[:8] == [
        "say_do_agreement",
        "say_do_ci",
        "self_accuracy",
        "optimal_accuracy",
        "random_accuracy",
        "value_loss",
        "states",
        "questions",
    ]
    assert data["say_do_agreement"] == 1.0 and data["self_accuracy"] == 1.0
    # issue 51.8: the accuracy on a few questions has its interval, as say-do agreement has
    low, high = data["self_accuracy_ci"]
    assert 0 < low < 1 == pytest.approx(high) and data["policies"]["own"]["accuracy_ci"]
    # 3 states asked: the loss is the interval over every choice at the others, from 0 (the
    # oracle's own choices lose nothing); the uniform default's loss is beside it
    assert data["defaulted"] > 0 and data["value_loss"] == 0 < data["value_loss_default"]
    assert data["value_loss_interval"] == [0, data["value_loss_high"]]
    assert data["value_loss_default"] <= data["value_loss_high"]
    assert main(["selfcheck", "--env", "frozen_lake", "--llm", "nonsense:x", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nonsense" in err[0]


def test_the_oracles_loss_at_budget_10_is_its_own(capsys, tmp_path):
    """Issue 51.4: Frozen Lake has 11 decision states the oracle's run can reach; at --budget 10
    the eleventh was filled by the uniform default and the oracle "lost" 42/629. Its own loss
    is the interval over every choice there, from 0 (the best choice) to 28/323 (the worst),
    and the output says so and names the default in words."""
    db = str(tmp_path / "o.sqlite")
    args = ["selfcheck", "--env", "frozen_lake", "--llm", "oracle", "--budget", "10", "--db", db]
    assert main(args) == 0
    shown = capsys.readouterr().out
    assert "1 decision state it gave no choice at, filled by the default: a uniform random" in shown
    assert (
        "value loss of its policy            [0, 0.08669] = [0, 28/323] over every choice at the"
        " 1 state it gave no choice at (a uniform random choice among the state's actions"
        " there: 0.06677)"
    ) in shown
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["value_loss_exact"], data["value_loss_high_exact"]) == ("0", "28/323")
    assert data["value_loss_default_exact"] == "42/629" and data["defaulted"] == 1
    assert "every choice at the 1 decision state" in data["value_loss_rule"]


@pytest.mark.slow
def test_gemma_checks_itself(tmp_path):
    """A real local model through all three steps (budget 2: a few minutes on a loaded
    machine); whatever it answers, the figures are shares and its loss lies in [0, V*(s0)]."""
    oracle, done, figures = _check("local:gemma3-270m", tmp_path / "g.sqlite", budget=2)
    assert done is not None and figures is not None
    assert 1 <= figures.acted <= 2
    assert figures.say_do_agreement is None or 0 <= figures.say_do_agreement <= 1
    assert 0 <= figures.value_loss <= oracle.initial.value + 1e-12
    for found in figures.policies.values():
        assert found.accuracy is None or 0 <= found.accuracy <= 1


def test_under_an_expected_reward_the_loss_is_bounded_over_every_choice(capsys, tmp_path):
    """R{"time"}min on rewards_four, one state asked: random's uniform mix at the start loses
    1/2 · (17/4 − 7/2) = 3/8 when the junction climbs (the least), and the junction's risky
    jump may fall into the pit (the greatest: an infinite total), so the interval is [3/8, ∞]."""
    model = str(Path(__file__).resolve().parents[2] / "models" / "rewards_four.prism")
    db = str(tmp_path / "r.sqlite")
    args = ["selfcheck", "--env", model, "--property", 'R{"time"}min=? [F "goal"]',
            "--llm", "random", "--budget", "1", "--db", db]  # fmt: skip
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value_loss_bounded"] is True and data["defaulted"] == 1
    assert data["value_loss_exact"] == "3/8" and data["value_loss_interval"] == [0.375, None]
    assert data["value_loss_high_infinite"] is True
    assert main(args) == 0
    said = capsys.readouterr().out
    assert "[0.375, ∞] = [3/8, ∞] over every choice at the 1 state it gave no choice at" in said

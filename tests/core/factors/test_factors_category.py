"""The ``factors`` category on the built-in environments: the oracle answerer passes every case,
the prompt names every factor, a wrong ordering or a weak factor fails, random answers read."""

from __future__ import annotations

import json
import random

import pytest

from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.factors.types import factor_truth
from explaincheck.core.taxonomy.base import FAIL, PASS
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.registry import CATEGORIES


@pytest.fixture(scope="module", params=("frozen_lake", "wolf_goat_cabbage"))
def plan(request):
    campaign = Campaign(
        environment=request.param, llms=("oracle",), categories=("factors",), budget=30
    )
    return plan_campaign(campaign)


def test_the_oracle_answerer_passes_every_factors_case(plan):
    assert plan.executions, plan.skipped
    backend = OracleBackend(plan.oracle)
    for execution in plan.executions:
        grade = grade_reply(execution.case, backend.reply_text(execution.case), plan.oracle)
        assert grade.verdict == PASS, grade.reason


def test_the_prompt_lists_every_factor_and_the_schema_allows_exactly_them(plan):
    truth = factor_truth(plan.oracle)
    execution = plan.executions[0]
    for factor in truth.factors:
        assert f"- {factor.id}: {factor.words}" in execution.prompt.text
    items = execution.prompt.schema["properties"]["factors"]
    assert items["items"]["enum"] == [f.id for f in truth.factors]
    assert (items["minItems"], items["maxItems"], items["uniqueItems"]) == (3, 3, True)


def test_a_reversed_order_or_a_weak_factor_fails(plan):
    category = CATEGORIES["factors"]
    failed = 0
    for execution in plan.executions:
        case = execution.case
        right = category.oracle_answer(case, plan.oracle)
        expected = category.expected(case, plan.oracle)
        necessity, kind = expected["necessity"], expected["kind"]
        cited = right["factors"]
        # graded under necessity, comparing only factors of one kind (model or state): swap a
        # cited factor for a strictly weaker uncited one of its kind
        for i, factor in enumerate(cited):
            weaker = [
                f
                for f in necessity
                if f not in cited
                and kind[f] == kind[factor]
                and necessity[f] < necessity[factor] - 1e-9
            ]
            if not weaker:
                continue
            swapped = {
                "action": right["action"],
                "factors": [*cited[:i], weaker[0], *cited[i + 1 :]],
            }
            grade = grade_reply(case, json.dumps(swapped), plan.oracle)
            assert grade.verdict == FAIL and "outranks" in grade.reason
            failed += 1
    assert failed > 0


def test_random_answers_are_readable(plan):
    category = CATEGORIES["factors"]
    for execution in plan.executions[:5]:
        form = category.answer_form(execution.case, plan.oracle)
        reply = form.reply(form.random(random.Random(1)))
        grade = grade_reply(execution.case, reply, plan.oracle)
        assert grade.verdict in (PASS, FAIL)


def test_the_slip_factor_matters_somewhere_on_frozen_lake():
    plan = plan_campaign(
        Campaign(environment="frozen_lake", llms=("oracle",), categories=("factors",), budget=30)
    )
    truth = factor_truth(plan.oracle)
    assert truth.dropped == {}
    assert any(s.effect("slippery_ice").necessary for s in truth.states.values())
    assert any(s.effect("hole_1_1").strength > 0 for s in truth.states.values())


def test_without_asking_for_factors_no_intervention_is_computed():
    plan = plan_campaign(Campaign(environment="frozen_lake", llms=("oracle",), budget=2))
    assert "factors" in plan.skipped
    assert getattr(plan.oracle, "factors", None) is None


def test_intervened_words_follow_the_constants():
    from explaincheck.core.environments.registry import resolve
    from explaincheck.core.oracle import compute_oracle

    melted = resolve("frozen_lake", constants="HOLE_1_1=false,AHEAD=3,SIDE=0")
    oracle = compute_oracle(melted.request())
    text = melted.describe(oracle.initial)
    assert "row 1: F F F H" in text and "row 1: F H F H" not in text
    assert "with probability 3/3" in melted.task and "0/3 each" in melted.task
    closed = resolve("transporter", constants="HATCH_A=false,p_slip=0")
    assert "probability 0 each" in closed.action_meanings["up"]
    assert "row 1: . . . ." in closed.describe(compute_oracle(closed.request()).initial)


@pytest.mark.parametrize("environment", ("transporter", "dam"))
def test_the_oracle_answerer_passes_on_transporter_and_dam(environment):
    plan = plan_campaign(
        Campaign(environment=environment, llms=("oracle",), categories=("factors",), budget=5)
    )
    truth = factor_truth(plan.oracle)
    assert truth.dropped == {} and len(plan.executions) == 5
    backend = OracleBackend(plan.oracle)
    for execution in plan.executions:
        grade = grade_reply(execution.case, backend.reply_text(execution.case), plan.oracle)
        assert grade.verdict == PASS, grade.reason
    model_factors = [f.id for f in truth.factors if f.constants]
    assert any(s.effect(f).necessary for s in truth.states.values() for f in model_factors)


def test_factors_prompts_pass_the_prompt_lint_rules(plan):
    """The rules of tests/core/taxonomy/test_prompt_lint.py, applied to factors prompts (that
    lint sees plain oracles, where factors does not apply): expected answers inside the schema,
    no verdict in the state words or in the factor words."""
    import importlib.util
    from pathlib import Path

    lint_path = Path(__file__).parents[1] / "taxonomy" / "test_prompt_lint.py"
    spec = importlib.util.spec_from_file_location("prompt_lint_rules", lint_path)
    lint = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lint)
    category = CATEGORIES["factors"]
    for execution in plan.executions:
        case, schema = execution.case, execution.prompt.schema["properties"]
        expected = category.expected(case, plan.oracle)
        assert set(expected["action"]) <= set(schema["action"]["enum"])
        assert set(expected["factors"]) <= set(schema["factors"]["items"]["enum"])
        state_words = plan.environment.describe(plan.oracle.state(case.states[0]))
        assert not lint.VERDICT_PHRASES.search(state_words), state_words
        for factor in factor_truth(plan.oracle).factors:
            assert not lint.VERDICT_PHRASES.search(factor.words), factor.words


def test_flaw_determinised_sees_no_fall_overboard():
    """wolf_goat_cabbage: in determinised's picture nothing falls overboard, so no factor moves
    the decision, every factor ties and it cites the first three in declaration order (the three
    overboard chances), which fails where the truth orders them otherwise."""
    from explaincheck.core.backends.registry import BackendContext, create_backend

    plan = plan_campaign(
        Campaign(
            environment="wolf_goat_cabbage", llms=("oracle",), categories=("factors",), budget=10
        )
    )
    backend = create_backend("flaw:determinised", BackendContext(oracle=plan.oracle))
    verdicts = []
    for execution in plan.executions:
        reply = json.loads(backend.reply_text(execution.case))
        assert reply["factors"] == ["wolf_overboard", "goat_overboard", "cabbage_overboard"]
        grade = grade_reply(execution.case, json.dumps(reply), plan.oracle)
        verdicts.append(grade.verdict)
    assert FAIL in verdicts and "invalid" not in verdicts

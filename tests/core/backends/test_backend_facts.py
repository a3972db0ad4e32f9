"""What planning and analysis know about an answerer comes from its ``BackendKind``: the facts
hold for every registered kind (iterated from ``KINDS``, so a new backend is checked without
editing this file), and a kind registered at run time is grouped and priced by them."""

from __future__ import annotations

import asyncio

import pytest

from explaincheck.core.analysis.layout import (
    BASELINE_LLM,
    CEILING_LLM,
    is_negative_control,
    is_reference,
)
from explaincheck.core.backends import registry
from explaincheck.core.backends.registry import (
    BASELINE,
    CEILING,
    KINDS,
    REFERENCE,
    BackendContext,
    BackendKind,
    answers_instantly,
    create_backend,
    first_spec,
    kind_of,
    role_of,
)
from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases

INSTANT = [k for k in KINDS.values() if k.instant]


def a_spec(kind: BackendKind) -> str:
    return (kind.offered() or (kind.example,))[0]


@pytest.fixture(scope="module")
def lake():
    campaign = Campaign(environment="frozen_lake", llms=("oracle",))
    environment = load_environment(campaign)
    return oracle_for(campaign, environment), environment


@pytest.mark.parametrize("kind", INSTANT, ids=[k.prefix for k in INSTANT])
def test_an_instant_kind_answers_every_category_at_once_with_no_server(kind, lake):
    oracle, env = lake
    # hosts that nobody serves: an instant answerer must not need them
    ctx = BackendContext(oracle=oracle, environment=env, ollama_hosts=("http://127.0.0.1:9",))
    backend = create_backend(a_spec(kind), ctx)
    cases = [c for cid in CATEGORIES for c in select_cases(oracle, cid, budget=5)]

    async def answer_all() -> list[str]:
        return [(await backend.answer(render_prompt(c, oracle, env), c)).text for c in cases]

    replies = asyncio.run(answer_all())  # its speed: benchmarks/instant_answerers.py
    assert len(replies) == len(cases) > 20 and all(replies)


def test_kinds_that_need_a_model_are_priced_and_overlap_as_declared():
    for kind in KINDS.values():
        assert kind.seconds > 0
        assert not (kind.instant and (kind.pooled or kind.serial)), kind.prefix
    assert not answers_instantly("ollama:gemma3:1b") and not answers_instantly("local")
    assert answers_instantly(" noisy:0.5") and answers_instantly("flaw:myopic:2")
    assert not answers_instantly("gpt4") and kind_of("gpt4") is None  # unknown: priced as a model


def test_the_baseline_and_ceiling_are_the_first_specs_of_their_roles(monkeypatch):
    assert (first_spec(BASELINE), first_spec(CEILING)) == (BASELINE_LLM, CEILING_LLM)
    assert (BASELINE_LLM, CEILING_LLM) == ("random", "oracle")
    second = BackendKind("first", lambda rest, ctx: None, "the first option", role=BASELINE)
    monkeypatch.setitem(registry.KINDS, "first", second)
    assert first_spec(BASELINE) == "random"  # a second baseline joins, it does not replace
    assert is_reference("first") and not is_negative_control("first")
    with pytest.raises(LookupError):
        first_spec("no such role")


def test_analysis_groups_a_registered_kind_by_its_role(monkeypatch):
    always = BackendKind(
        "always", lambda rest, ctx: None, "names one action", argument="ACTION", role=REFERENCE
    )
    monkeypatch.setitem(registry.KINDS, "always", always)
    assert role_of("always:up") == REFERENCE
    assert is_reference("always:up") and not is_negative_control("always:up")
    assert is_reference("flaw:distance") and is_negative_control("noisy:0.25")
    assert is_negative_control("random") and not is_negative_control("oracle")
    assert not is_reference("ollama:gemma3:1b") and not is_reference("an-old-llm")

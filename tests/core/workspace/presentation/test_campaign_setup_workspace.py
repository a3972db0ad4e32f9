"""CampaignSetupWorkspace: the Campaign tab's category facts without Qt, on Frozen Lake."""

from __future__ import annotations

import asyncio

import pytest

from explaincheck.core.environments.registry import resolve
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.workspace.presentation.campaign_setup import (
    CampaignSetupWorkspace,
    category_entries,
)
from explaincheck.core.workspace.presentation.category_marks import category_mark


@pytest.fixture(scope="module")
def lake():
    environment = resolve("frozen_lake")
    return compute_oracle(environment.request()), environment


def test_frozen_lake_facts_say_what_applies_what_is_offered_and_what_is_idle(lake):
    oracle, environment = lake
    workspace = CampaignSetupWorkspace()
    heard = []
    workspace.ready.connect(heard.append)
    facts = asyncio.run(workspace.refresh(oracle, environment))
    assert heard == [facts] and workspace.facts is facts and facts.oracle is oracle
    assert set(facts.applicability) == set(CATEGORIES)
    missing = {cid for cid, found in facts.applicability.items() if found.reason}
    assert missing == {
        "factors",
        "policy_reach",
        "policy_optimal",
        "policy_better",
        "policy_regret",
    }
    assert "no policy is loaded" in facts.applicability["policy_regret"].reason
    assert "factors" in missing and "factors" in facts.offers  # asked for by id, with its cost
    assert facts.offers["factors"].label.startswith("on request: ")
    assert "subset_dead_end" in facts.idle  # the words give every failure state away
    assert not set(facts.idle) & {"satisfy", "best_action", "safer"}
    assert "reading cases" in facts.idle["subset_dead_end"]
    # as the tab then shows them
    marks = {
        cid: category_mark(
            cid, cid, facts.applicability[cid], facts.offers.get(cid), facts.idle, None
        )
        for cid in CATEGORIES
    }
    assert not marks["policy_reach"].enabled and marks["factors"].enabled
    assert not marks["factors"].ticked and marks["subset_dead_end"].ticked
    assert marks["subset_dead_end"].text.endswith("measures nothing here")


def test_facts_of_a_replaced_model_are_dropped(lake):
    oracle, environment = lake
    gate = asyncio.Event()

    async def offload(function, *args):
        await gate.wait()
        return function(*args)

    workspace = CampaignSetupWorkspace(offload=offload)
    heard = []
    workspace.ready.connect(heard.append)

    async def replaced():
        pending = asyncio.ensure_future(workspace.refresh(oracle, environment))
        await asyncio.sleep(0)
        workspace.watch(None)  # the tab moved on (another model, or none) meanwhile
        gate.set()
        return await pending

    assert asyncio.run(replaced()) is None and heard == [] and workspace.facts is None


def test_entries_list_every_category_in_the_registry_order():
    entries = category_entries()
    assert [entry.id for entry in entries] == list(CATEGORIES)
    assert all(entry.title == CATEGORIES[entry.id].title for entry in entries)
    assert {entry.dimension for entry in entries} <= {
        "state",
        "preference",
        "scope",
        "mode",
        "explanation",
    }

"""One progress over a matrix of campaigns: ``all`` names every installed environment, the
executions each environment already stored count from the start, each campaign's snapshots
fold into the whole, and the work left per LLM is summed over every environment."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from explaincheck.core.campaign.matrix import (
    MatrixProgress,
    expand_environments,
    left_in_plans,
)
from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.campaign.progress import Tally

INSTALLED = ("frozen_lake", "wolf_goat_cabbage", "water_jug", "dam")


def test_all_is_every_installed_environment_and_each_is_named_once():
    assert expand_environments(["all"], INSTALLED) == INSTALLED
    assert expand_environments(["dam", " all "], INSTALLED) == (
        "dam",
        "frozen_lake",
        "wolf_goat_cabbage",
        "water_jug",
    )
    assert expand_environments(["m.prism", "dam", "dam"], INSTALLED) == ("m.prism", "dam")


@pytest.fixture(scope="module")
def plans():
    return [
        plan_campaign(Campaign(env, ("random", "oracle"), ("satisfy", "best_action"), budget=2))
        for env in ("frozen_lake", "water_jug")
    ]


def test_stored_executions_of_every_environment_count_from_the_start(plans):
    first, second = plans
    stored = {
        first.executions[0].key: ("pass", 1),
        first.executions[1].key: ("error", 1),  # asked again: not done, still left
        second.executions[0].key: ("fail", 1),
        "a key of another campaign": ("pass", 1),
    }
    matrix = MatrixProgress.start(plans, stored)
    snapshot = matrix.final("running")
    assert snapshot.total == first.total + second.total
    assert (snapshot.done, snapshot.resumed, snapshot.passed, snapshot.failed) == (2, 2, 1, 1)
    left = left_in_plans(plans, stored)
    done = {first.executions[0].key, second.executions[0].key}
    expected = Counter(e.llm for plan in plans for e in plan.executions if e.key not in done)
    assert left == dict(expected) and sum(left.values()) == snapshot.total - 2


def test_each_campaign_s_snapshots_fold_into_the_whole(plans):
    matrix = MatrixProgress.start(plans, {})
    matrix.begin(1)
    own = Tally(plans[1].total)  # the second campaign's runner, counting its own plan
    opening = own.snapshot(message="resuming: 0 of 4 already stored")
    assert matrix.fold(opening).message == "[2/2] water_jug: resuming: 0 of 4 already stored"
    assert matrix.fold(own.snapshot()).message == ""  # said once per campaign
    own.count("pass")
    record = SimpleNamespace(verdict="pass", llm="random", latency=0.0)
    folded = matrix.fold(own.snapshot(last=record))
    assert (folded.total, folded.done, folded.passed) == (
        plans[0].total + plans[1].total,
        1,
        1,
    )
    ended = matrix.fold(own.snapshot(state="finished"))
    assert ended.state == "running" and ended.done == 1  # the matrix says when it ends
    assert matrix.final("cancelled").state == "cancelled"


def test_one_campaign_is_told_as_it_always_was(plans):
    matrix = MatrixProgress.start(plans[:1], {})
    own = Tally(plans[0].total)
    assert matrix.fold(own.snapshot(message="resuming: 1 of 8")).message == "resuming: 1 of 8"
    assert matrix.fold(own.snapshot()).message == ""

"""A campaign run without Qt: the workspace plans, runs and finishes it into a real results
file, tells every step through its callbacks, keeps its state, and stops on request."""

from __future__ import annotations

from dataclasses import replace

import pytest

from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import GradingSettings
from explaincheck.core.workspace.campaign import CampaignRequest, CampaignWorkspace


@pytest.fixture(scope="module")
def model():
    plan = plan_campaign(Campaign("frozen_lake", ("oracle",), ("satisfy",), budget=1))
    return plan.environment, plan.oracle


def request(model, db, *llms: str) -> CampaignRequest:
    environment, oracle = model
    campaign = Campaign("frozen_lake", llms, ("satisfy", "best_action"), budget=2)
    return CampaignRequest(campaign, str(db), environment, oracle, BackendSettings())


def watched(workspace: CampaignWorkspace) -> dict[str, list]:
    seen: dict[str, list] = {}
    events = workspace.events
    for event in (events.running, events.planned, events.executed, events.finished, events.failed):
        seen[event.name] = []
        event.connect(lambda *values, name=event.name: seen[name].append(values))
    return seen


def test_a_run_tells_its_plan_rows_and_outcome_and_keeps_them(model, tmp_path):
    workspace = CampaignWorkspace()
    seen = watched(workspace)
    asked = request(model, tmp_path / "r.sqlite", "random", "oracle")
    outcome = workspace.run_blocking(asked)
    assert seen["running"] == [(True,), (False,)] and not workspace.running
    assert seen["planned"] == [(8, {})]  # 2 LLMs x 2 categories x 2 cases
    records = [values[0] for values in seen["executed"]]
    assert len(records) == 8 and {r.verdict for r in records if r.llm == "oracle"} == {"pass"}
    assert seen["finished"] == [(outcome,)] and outcome.complete and not seen["failed"]
    assert workspace.outcome is outcome and workspace.progress is outcome.progress
    assert workspace.store_path == asked.db_path and workspace.planned == 8
    with Store.open(asked.db_path, readonly=True) as store:
        assert sorted(s.exec_key for s in store.stored_executions()) == sorted(
            r.exec_key for r in records
        )
        options = store.campaigns()[0].settings.get("run_options") or {}
    assert options.get("db") == asked.db_path  # the run options are kept for results --config


def test_stop_before_the_run_starts_cancels_it_and_keeps_what_is_stored(model, tmp_path):
    workspace = CampaignWorkspace()
    asked = request(model, tmp_path / "r.sqlite", "oracle")
    workspace.begin(asked)
    workspace.stop()
    outcome = workspace.run_blocking(asked)
    assert outcome is not None and outcome.progress.state == "cancelled"
    assert outcome.progress.done == 0 and not outcome.complete
    again = workspace.run_blocking(asked)  # running it again resumes (nothing was stopped now)
    assert again is not None and again.complete and again.progress.done == 4


def test_a_failing_run_is_told_not_raised(model, tmp_path):
    workspace = CampaignWorkspace()
    seen = watched(workspace)
    folder = tmp_path / "a file"
    folder.write_text("not a folder")
    outcome = workspace.run_blocking(request(model, folder / "r.sqlite", "oracle"))
    assert outcome is None and len(seen["failed"]) == 1
    assert workspace.error is seen["failed"][0][0] and seen["running"][-1] == (False,)


def test_a_resume_under_another_rule_regrades_and_records_the_rule(model, tmp_path):
    """The window's runs end as ``run`` does: rows stored under the old satisfy rule are graded
    again from their replies (nothing asked again) and the campaign names the new rule."""
    workspace = CampaignWorkspace()
    first = request(model, tmp_path / "r.sqlite", "random")
    assert workspace.run_blocking(first).complete
    half = replace(first.campaign, grading=GradingSettings("half", 0.05))
    again = replace(first, campaign=half)
    outcome = workspace.run_blocking(again)
    assert outcome is not None and outcome.progress.resumed == 4
    assert workspace.last_run is not None and workspace.last_run.finished.regraded.graded == 4
    with Store.open(first.db_path, readonly=True) as store:
        (campaign,) = store.campaigns()
        gradings = {tuple(sorted(s.grading.items())) for s in store.stored_executions()}
    assert gradings == {(("satisfy_rule", "half"), ("satisfy_tolerance", 0.05))}
    assert campaign.settings["grading"] == {"satisfy_rule": "half", "satisfy_tolerance": 0.05}

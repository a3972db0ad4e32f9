"""A very large plan is warned about before it is written, with its estimated size."""

from __future__ import annotations

from support.campaign_fakes import synthetic_plan

from explaincheck.core.campaign import plan_size


def test_a_small_plan_gives_no_warning(tmp_path):
    assert (
        plan_size.size_warning(synthetic_plan(cases_per_category=4), tmp_path / "r.sqlite") is None
    )


def test_a_very_large_plan_is_warned_about_with_its_size(tmp_path, monkeypatch):
    plan = synthetic_plan(cases_per_category=50, repeat=10)  # 1,500 executions
    monkeypatch.setattr(plan_size, "WARN_EXECUTIONS", 1000)  # as if repeated thousands of times
    warning = plan_size.size_warning(plan, tmp_path / "r.sqlite")
    assert warning is not None and "1,500 executions" in warning and "GB free" in warning
    per_row = plan_size.estimated_bytes(plan) / plan.total
    assert plan_size.ROW_BYTES < per_row < plan_size.ROW_BYTES + 100  # short prompts


def test_the_estimate_is_near_a_real_file(tmp_path):
    import asyncio

    from support.campaign_fakes import ScriptedBackend, toy_grade

    from explaincheck.core.campaign.runner import CampaignRunner
    from explaincheck.core.store import Store

    plan = synthetic_plan(cases_per_category=100, repeat=2)  # 600 executions
    db = tmp_path / "r.sqlite"
    with Store.open(db) as store:
        asyncio.run(CampaignRunner(plan, store, {"fake": ScriptedBackend()}, grade=toy_grade).run())
    written = sum(p.stat().st_size for p in tmp_path.glob("r.sqlite*"))
    assert 0.3 < plan_size.estimated_bytes(plan) / written < 3

"""A matrix of environments run as one: every campaign planned before anything is asked, one
progress over the whole (its total the sum, its count never going back), the work left per LLM
told once for every environment, a stop ends the matrix (the next environments are not begun),
and the same requests again ask only what is missing, in every environment."""

from __future__ import annotations

import asyncio
import sqlite3

from explaincheck.core.analysis.completeness import completeness
from explaincheck.core.campaign.plan import Campaign
from explaincheck.core.campaign.session import BackendSettings, CampaignSession
from explaincheck.core.workspace.campaign import CampaignRequest
from explaincheck.core.workspace.matrix import MatrixHooks, MatrixRun, run_matrix

ENVIRONMENTS = ("frozen_lake", "water_jug", "dam")


def requests(db) -> list[CampaignRequest]:
    return [
        CampaignRequest(
            Campaign(env, ("random", "oracle"), ("satisfy", "best_action"), budget=2),
            str(db),
            None,
            None,
            BackendSettings(),
        )
        for env in ENVIRONMENTS
    ]


class Watch(MatrixHooks):
    """Records what the matrix tells; ``stop_after``: cancel after that many executions."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.planned_envs: list[str] = []
        self.matrix_plans = 0
        self.llm_plans: list[dict[str, int]] = []
        self.snapshots = []
        self.ended: list[MatrixRun] = []
        self.stop_after = stop_after
        self.session: CampaignSession | None = None

    def planned(self, plan) -> None:
        self.planned_envs.append(plan.environment_name)

    def matrix_planned(self, plans) -> None:
        self.matrix_plans += 1
        assert self.planned_envs == list(ENVIRONMENTS)  # every plan made before the matrix

    def opened(self, session) -> None:
        self.session = session

    def llm_plan(self, left, concurrency) -> None:
        self.llm_plans.append(dict(left))

    def progress(self, progress) -> None:
        self.snapshots.append(progress)
        executed = sum(1 for s in self.snapshots if s.last is not None)
        if self.stop_after is not None and executed == self.stop_after and self.session:
            self.session.cancel()  # as Ctrl-C does

    def matrix_ended(self, run, session) -> None:
        self.ended.append(run)


def stored(db) -> list[tuple[str, str, str]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT exec_key, environment, finished_at FROM executions"
        ).fetchall()


def test_the_matrix_is_one_run_with_one_progress(tmp_path):
    db = tmp_path / "m.sqlite"
    watch = Watch()
    ran = asyncio.run(run_matrix(requests(db), watch))
    total = sum(plan.total for plan in ran.plans)
    assert [plan.environment_name for plan in ran.plans] == list(ENVIRONMENTS)
    assert watch.matrix_plans == 1 and len(watch.ended) == 1 and len(ran.runs) == 3
    assert watch.llm_plans == [{"random": total // 2, "oracle": total // 2}]  # once, for all
    assert {s.total for s in watch.snapshots} == {total}
    done = [s.done for s in watch.snapshots]
    assert done == sorted(done) and done[-1] == total
    assert [s.state for s in watch.snapshots].count("finished") == 1  # the matrix's own end
    assert watch.snapshots[-1].state == "finished" and ran.outcome.complete
    named = [s.message for s in watch.snapshots if s.message]
    assert named == ["[1/3] frozen_lake", "[2/3] water_jug", "[3/3] dam"]
    rows = stored(db)
    assert len(rows) == len({key for key, _, _ in rows}) == total
    assert {env for _, env, _ in rows} == set(ENVIRONMENTS)
    with sqlite3.connect(db) as connection:
        campaigns = connection.execute("SELECT environment, status FROM campaigns").fetchall()
    assert campaigns == [(env, "finished") for env in ENVIRONMENTS]  # one campaign each


def test_a_stopped_matrix_resumes_asking_only_what_is_missing(tmp_path):
    db = tmp_path / "m.sqlite"
    first = asyncio.run(run_matrix(requests(db), Watch(stop_after=3)))
    total = sum(plan.total for plan in first.plans)
    assert first.outcome.progress.state == "cancelled" and not first.outcome.complete
    assert len(first.runs) == 1  # stopped in the first environment: the others not begun
    before = {key: finished for key, _, finished in stored(db)}
    assert 3 <= len(before) < total
    with sqlite3.connect(db) as connection:
        campaigns = connection.execute("SELECT environment, planned, status FROM campaigns")
        campaigns = campaigns.fetchall()
    # the environments not begun are in the file too, planned and incomplete: the file says
    # what the whole study planned, so a report or a gate sees it unfinished
    assert [(env, status) for env, _, status in campaigns] == [
        ("frozen_lake", "cancelled"),
        ("water_jug", "incomplete"),
        ("dam", "incomplete"),
    ]
    assert sum(planned for _, planned, _ in campaigns) == total
    assert completeness(db).words() == f"{len(before)} of {total} planned executions graded"

    watch = Watch()
    again = asyncio.run(run_matrix(requests(db), watch))
    assert again.outcome.complete and watch.snapshots[0].done == len(before)
    assert sum(watch.llm_plans[0].values()) == total - len(before)  # the ETA's work left
    rows = stored(db)
    assert len(rows) == len({key for key, _, _ in rows}) == total
    assert {env for _, env, _ in rows} == set(ENVIRONMENTS)
    # what the first run stored was not asked again
    assert all(before[key] == finished for key, _, finished in rows if key in before)
    new = [s for s in watch.snapshots if s.last is not None]
    assert len(new) == total - len(before)
    with sqlite3.connect(db) as connection:
        statuses = connection.execute("SELECT environment, status FROM campaigns").fetchall()
    assert statuses == [(env, "finished") for env in ENVIRONMENTS]  # the same rows, finished

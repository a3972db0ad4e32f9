"""Backends are prepared side by side: an instant answerer answers while a slow one (a local
model loading) is still preparing, the run says "loading LLM…" meanwhile, and a backend that
fails to prepare before anything was stored leaves no campaign record."""

from __future__ import annotations

import asyncio

import pytest
from support.campaign_fakes import ScriptedBackend, synthetic_plan, toy_grade

from explaincheck.core.backends.base import BackendError, Reply
from explaincheck.core.backends.llm import LLMBackend, RequestIdentity
from explaincheck.core.campaign import runner as runner_module
from explaincheck.core.campaign.progress import ProgressEvents
from explaincheck.core.campaign.runner import CampaignRunner
from explaincheck.core.store import Store

GENEROUS = 120  # seconds: only a runner that waits for the slow backend first gets here


class GatedBackend(LLMBackend):
    """Prepares until ``gate`` opens (set by the test once the instant answerer has answered)."""

    spec = "slow"
    concurrency = 1

    def __init__(self, gate: asyncio.Event | None = None, fail: bool = False) -> None:
        self.gate = gate
        self.fail = fail
        self.prepared = False

    async def prepare(self) -> None:
        if self.gate is not None:
            await self.gate.wait()
        if self.fail:
            raise BackendError("slow: the model file is missing")
        self.prepared = True

    def request_identity(self, prompt, repeat=0) -> RequestIdentity:
        return RequestIdentity("gated", ("here",), "m", {"repeat": repeat})

    async def answer(self, prompt, case, *, repeat=0) -> Reply:
        assert self.prepared
        return Reply('{"answer": "yes"}', latency=0.0, host="here")


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "r.sqlite") as opened:
        yield opened


def test_the_instant_answerer_answers_while_the_slow_one_loads(store, monkeypatch):
    monkeypatch.setattr(runner_module, "LOADING_NOTE_AFTER", 0.0)  # say it at once
    plan = synthetic_plan(llms=("fast", "slow"), cases_per_category=3)

    async def scenario():
        gate = asyncio.Event()
        slow = GatedBackend(gate)
        seen: list[tuple[str | None, bool, str]] = []
        bus = ProgressEvents()

        def watch(progress):
            llm = progress.last.llm if progress.last else None
            seen.append((llm, slow.prepared, progress.message))
            if sum(1 for seen_llm, _, _ in seen if seen_llm == "fast") == 3:
                gate.set()  # the slow backend is ready only after fast answers are stored

        bus.subscribe(watch)
        backends = {"fast": ScriptedBackend(spec="fast"), "slow": slow}
        runner = CampaignRunner(plan, store, backends, grade=toy_grade, events=bus)
        outcome = await asyncio.wait_for(runner.run(), GENEROUS)
        return outcome, seen

    outcome, seen = asyncio.run(scenario())
    assert outcome.complete and store.count() == plan.total
    first_fast = next(i for i, (llm, _, _) in enumerate(seen) if llm == "fast")
    assert not seen[first_fast][1]  # answered before the slow backend was prepared
    assert ("slow" in {llm for llm, _, _ in seen}) and all(
        prepared for llm, prepared, _ in seen if llm == "slow"
    )
    assert any(message == "loading slow…" for _, _, message in seen)  # the terminal's line
    # the window's line: every snapshot says it while the slow backend loads
    assert any(llm == "fast" and note == "loading slow…" for llm, _, note in seen)


def test_a_backend_that_fails_to_prepare_first_leaves_no_campaign(store):
    plan = synthetic_plan(llms=("slow",), cases_per_category=2)
    runner = CampaignRunner(plan, store, {"slow": GatedBackend(fail=True)}, grade=toy_grade)
    with pytest.raises(BackendError, match="model file is missing"):
        asyncio.run(runner.run())
    assert store.campaigns() == [] and store.count() == 0

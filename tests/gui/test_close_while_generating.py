"""Closing the window while a local model generates is quiet: the campaign's (or the LLM
policy's) thread may still be ending when Qt deletes its controller, and a signal it emitted then
raised "RuntimeError: Signal source has been deleted" at exit. Here the generation holds the
session's thread until the test lets it go, after the window has closed and the controller's
Qt object is gone; nothing may reach the thread's exception hook."""

from __future__ import annotations

import threading

import pytest
import shiboken6
from gui_helpers import open_env, wait_for

from explaincheck.core.backends import registry
from explaincheck.core.backends.base import Reply
from explaincheck.core.backends.llm import LLMBackend, RequestIdentity
from explaincheck.core.campaign.plan import Campaign
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.gui.adapters.llm_policy import PolicyAsk


class HeldGeneration(LLMBackend):
    """A generation that holds the session's own thread until ``release`` is set (as an
    uninterruptible native generation outlives a Stop)."""

    concurrency = 1

    def __init__(self, started: threading.Event, release: threading.Event) -> None:
        self.spec = "heldgen"
        self.started, self.release = started, release

    def request_identity(self, prompt, repeat=0) -> RequestIdentity:
        return RequestIdentity("heldgen", ("here",), "held", {"repeat": repeat})

    async def answer(self, prompt, case, *, repeat=0) -> Reply:
        self.started.set()
        self.release.wait(30)
        return Reply('{"action": "up", "probability": 0.5}', latency=0.0, host="here")


@pytest.fixture
def held(monkeypatch):
    started, release = threading.Event(), threading.Event()
    kind = registry.BackendKind(
        "heldgen", lambda rest, ctx: HeldGeneration(started, release), "a held generation"
    )
    monkeypatch.setitem(registry.KINDS, "heldgen", kind)
    raised: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    yield started, release, raised
    release.set()


def close_delete_release(qtbot, window, controller, held) -> list[BaseException]:
    """Close the window mid-generation, delete the controller as Qt does at exit, then let the
    generation end and the thread finish."""
    started, release, raised = held
    thread = controller._thread
    wait_for(qtbot, started.is_set, 60)
    window.close()
    shiboken6.delete(controller)  # what the application's teardown does to the window's parts
    release.set()
    thread.join(30)
    assert not thread.is_alive()
    return raised


def test_closing_during_a_campaign_generation_raises_nothing(qtbot, window, tmp_path, held):
    open_env(qtbot, window, "frozen_lake")
    campaigns = window.campaigns
    campaign = Campaign("frozen_lake", ("heldgen",), ("satisfy",), budget=2)
    model = window.model
    db = str(tmp_path / "results.sqlite")
    campaigns.start(campaign, db, model.environment, model.oracle, BackendSettings())
    raised = close_delete_release(qtbot, window, campaigns, held)
    window.campaigns = _Gone()  # the fixture's teardown closes the window again
    assert raised == []


def test_closing_while_an_llm_is_asked_for_its_policy_raises_nothing(qtbot, window, tmp_path, held):
    open_env(qtbot, window, "frozen_lake")
    assert window.llm_policy.ask(PolicyAsk("heldgen", 2, "uniform", str(tmp_path / "p.sqlite")))
    controller = window.llm_policy.controller
    raised = close_delete_release(qtbot, window, controller, held)
    window.llm_policy.controller = _Gone()
    assert raised == []


class _Gone:
    """Stands for a deleted controller when the window is closed again by the teardown."""

    running = False

    def stop(self) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def wait(self, timeout: float | None = None) -> None:
        pass

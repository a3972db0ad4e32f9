"""The campaign session: runs a plan into a real results file with backends it creates from the
user's settings and always closes (finished, cancelled, failed); asks one case live on the
configured Ollama host (a stand-in server over real HTTP) with a clear error for a dead one."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import threading
from typing import ClassVar

import pytest
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends import registry
from explaincheck.core.backends.llm import LLMBackend, RequestIdentity
from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.campaign.plan import Campaign, Plan, plan_campaign
from explaincheck.core.campaign.session import (
    BackendSettings,
    CampaignSession,
    ask_live,
)
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.prompts import render_prompt

CATEGORIES = ("satisfy", "best_action")


@pytest.fixture(scope="module")
def plan() -> Plan:
    return plan_campaign(Campaign("frozen_lake", ("random", "oracle"), CATEGORIES, budget=3))


def plan_for(plan: Plan, *llms: str) -> Plan:
    return plan_campaign(
        Campaign("frozen_lake", llms, CATEGORIES, budget=3),
        environment=plan.environment,
        oracle=plan.oracle,
    )


class SpyOracle(OracleBackend):
    """The oracle answerer, slowed down, that notes being closed (registered as ``spy``)."""

    made: ClassVar[list[SpyOracle]] = []

    def __init__(self, oracle, delay: float = 0.05) -> None:
        super().__init__(oracle)
        self.delay = delay
        self.closed = False
        self.concurrency = 1
        SpyOracle.made.append(self)

    async def answer(self, prompt, case):
        await asyncio.sleep(self.delay)
        return await super().answer(prompt, case)

    async def close(self) -> None:
        self.closed = True


class BrokenLLM(LLMBackend):
    """An LLM whose preparation fails (as a missing model does), noting being closed."""

    made: ClassVar[list[BrokenLLM]] = []

    def __init__(self) -> None:
        self.closed = False
        BrokenLLM.made.append(self)

    async def prepare(self) -> None:
        raise ExplaincheckError("model broken not found")

    def request_identity(self, prompt, repeat=0):
        return RequestIdentity("broken", ("nowhere",), "broken")

    async def answer(self, prompt, case, *, repeat=0):
        raise AssertionError("never asked: preparing failed")

    async def close(self) -> None:
        self.closed = True


@pytest.fixture
def spies(monkeypatch):
    SpyOracle.made.clear()
    BrokenLLM.made.clear()
    monkeypatch.setitem(
        registry.KINDS,
        "spy",
        registry.BackendKind("spy", lambda rest, ctx: SpyOracle(ctx.oracle), "test"),
    )
    monkeypatch.setitem(
        registry.KINDS,
        "broken",
        registry.BackendKind("broken", lambda rest, ctx: BrokenLLM(), "test"),
    )
    return SpyOracle.made, BrokenLLM.made


def test_run_stores_every_execution_in_the_results_file(plan, tmp_path):
    db = tmp_path / "results.sqlite"
    seen: dict[str, int] = {}
    with CampaignSession.open(db) as session:
        outcome = asyncio.run(
            session.run(plan, started=lambda b: seen.update({s: b[s].concurrency for s in b}))
        )
    assert outcome.complete and outcome.progress.state == "finished"
    assert set(seen) == {"random", "oracle"}  # ``started`` saw the backends it made
    with Store.open(db, readonly=True) as store:
        rows = store.executions()
    assert len(rows) == plan.total == 2 * 2 * 3
    assert {r["verdict"] for r in rows if r["llm"] == "oracle"} == {"pass"}
    # the same plan again resumes: nothing is asked twice
    with CampaignSession.open(db) as session:
        again = asyncio.run(session.run(plan))
    assert again.progress.resumed == plan.total


def test_backends_are_closed_after_a_finished_run(plan, tmp_path, spies):
    made, _ = spies
    with CampaignSession.open(tmp_path / "r.sqlite") as session:
        outcome = asyncio.run(session.run(plan_for(plan, "spy", "random")))
    assert outcome.complete
    assert len(made) == 1 and made[0].closed


def test_cancel_before_the_run_stops_it_at_once_and_closes(plan, tmp_path, spies):
    made, _ = spies
    with CampaignSession.open(tmp_path / "r.sqlite") as session:
        session.cancel()
        outcome = asyncio.run(session.run(plan_for(plan, "spy")))
    assert outcome.progress.state == "cancelled"
    assert outcome.progress.done == 0
    assert made[0].closed


def test_cancel_from_another_thread_keeps_what_finished_and_closes(plan, tmp_path, spies):
    made, _ = spies
    db = tmp_path / "r.sqlite"
    small = plan_for(plan, "spy")

    async def go(session):
        events_seen = []
        from explaincheck.core.campaign.progress import ProgressEvents

        events = ProgressEvents()

        def on_progress(progress):
            events_seen.append(progress)
            if progress.done == 2:  # cancel from a thread, as the GUI's Stop does
                threading.Thread(target=session.cancel).start()

        events.subscribe(on_progress)
        return await session.run(small, events=events)

    with CampaignSession.open(db) as session:
        outcome = asyncio.run(go(session))
    assert outcome.progress.state == "cancelled"
    assert 2 <= outcome.progress.done < small.total
    assert made[0].closed
    with Store.open(db, readonly=True) as store:
        assert len([r for r in store.executions() if r["verdict"] == "pass"]) >= 2


def test_a_failing_preparation_raises_and_still_closes_every_backend(plan, tmp_path, spies):
    made, broken = spies
    with (
        CampaignSession.open(tmp_path / "r.sqlite") as session,
        pytest.raises(ExplaincheckError, match="model broken not found"),
    ):
        asyncio.run(session.run(plan_for(plan, "spy", "broken")))
    assert made[0].closed and broken[0].closed


def test_a_backend_that_cannot_be_made_closes_those_made_before(plan, tmp_path, spies, monkeypatch):
    made, _ = spies

    def refuse(rest, ctx):
        raise ExplaincheckError("no such answerer here")

    monkeypatch.setitem(registry.KINDS, "refused", registry.BackendKind("refused", refuse, "test"))
    with (
        CampaignSession.open(tmp_path / "r.sqlite") as session,
        pytest.raises(ExplaincheckError, match="no such answerer"),
    ):
        asyncio.run(session.run(plan_for(plan, "spy", "refused")))
    assert made[0].closed


def test_the_store_stays_on_the_thread_that_opened_it(tmp_path):
    with CampaignSession.open(tmp_path / "r.sqlite") as session:
        failure: list[BaseException] = []

        def elsewhere():
            try:
                session.store.stored()
            except BaseException as error:
                failure.append(error)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
    assert failure and isinstance(failure[0], sqlite3.ProgrammingError)


# -- ask live ---------------------------------------------------------------------------------


def test_ask_live_grades_the_oracle_answer(plan):
    case = plan.executions[0].case
    answer = asyncio.run(ask_live("oracle", case, plan.oracle, plan.environment))
    assert answer.verdict == "pass"
    assert answer.prompt == render_prompt(case, plan.oracle, plan.environment).text
    assert answer.reply == OracleBackend(plan.oracle).reply_text(case)


def test_ask_live_asks_the_configured_host(plan, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # ignored: the settings say where
    case = plan.executions[0].case
    truth = OracleBackend(plan.oracle).reply_text(case)
    with StandinOllama({"gemma3:1b": Script()}, answer=lambda request: truth) as server:
        assert server.port != 11434
        settings = BackendSettings(ollama_hosts=(server.url,), timeout=10)
        answer = asyncio.run(
            ask_live("ollama:gemma3:1b", case, plan.oracle, plan.environment, settings)
        )
        chats = server.chats()
    assert len(chats) == 1
    assert chats[0]["messages"][0]["content"] == answer.prompt
    assert answer.host == server.url
    assert answer.reply == truth and answer.verdict == "pass"


def test_ask_live_grades_a_malformed_reply_invalid(plan):
    case = plan.executions[0].case
    with StandinOllama({"gemma3:1b": Script(mode="malformed")}) as server:
        settings = BackendSettings(ollama_hosts=(server.url,), timeout=10)
        answer = asyncio.run(
            ask_live("ollama:gemma3:1b", case, plan.oracle, plan.environment, settings)
        )
    assert answer.verdict == "invalid" and answer.reason


def test_ask_live_on_a_dead_host_says_so_in_one_line(plan):
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    settings = BackendSettings(ollama_hosts=(dead,), timeout=5)
    case = plan.executions[0].case

    async def go():
        return await asyncio.wait_for(
            ask_live("ollama:gemma3:1b", case, plan.oracle, plan.environment, settings), 30
        )

    with pytest.raises(ExplaincheckError) as raised:
        asyncio.run(go())
    message = str(raised.value)
    assert "no Ollama server answers" in message and dead in message
    assert "\n" not in message


def test_ask_live_for_a_model_the_host_lacks_names_it(plan):
    case = plan.executions[0].case
    with StandinOllama({"gemma3:1b": Script()}) as server:
        settings = BackendSettings(ollama_hosts=(server.url,), timeout=5)
        with pytest.raises(ExplaincheckError, match="model qwen3:4b not found"):
            asyncio.run(ask_live("ollama:qwen3:4b", case, plan.oracle, plan.environment, settings))

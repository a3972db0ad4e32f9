"""Teach's "ask live" through its controller: the user's Ollama host (read at each question)
receives the request, a silent host fails with one line while the GUI loop keeps running, a new
question abandons the one in flight; and in the window, the Teach tab asks the host set in
Settings."""

from __future__ import annotations

import socket

import pytest
from gui_helpers import open_env, wait_for
from PySide6.QtCore import QTimer
from support.ollama_standin import Script, StandinOllama

from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.gui.adapters.live_question_controller import LiveQuestionController
from explaincheck.gui.main_window import MainWindow
from explaincheck.gui.support.settings import Preferences
from explaincheck.gui.support.tasks import Tasks

SPEC = "ollama:gemma3:1b"


@pytest.fixture(scope="module")
def plan():
    return plan_campaign(Campaign("frozen_lake", ("oracle",), ("satisfy",), budget=1))


class Chosen:
    """The settings the controller reads, changeable between questions."""

    def __init__(self, *hosts: str, timeout: float = 10.0) -> None:
        self.value = BackendSettings(ollama_hosts=hosts, timeout=timeout)

    def __call__(self) -> BackendSettings:
        return self.value


@pytest.fixture
def make(qtbot, qloop):
    made: list[LiveQuestionController] = []

    def build(settings: Chosen) -> LiveQuestionController:
        made.append(LiveQuestionController(Tasks(), settings))
        return made[-1]

    yield build
    for controller in made:
        controller.cancel()
        wait_for(qtbot, lambda c=controller: c.tasks.idle, 30)


def ask(controller, plan, spec: str = SPEC):
    case = plan.executions[0].case
    return controller.ask(spec, case, plan.oracle, plan.environment)


def test_the_configured_host_receives_the_question(qtbot, make, plan):
    case = plan.executions[0].case
    truth = OracleBackend(plan.oracle).reply_text(case)
    with StandinOllama({"gemma3:1b": Script()}, answer=lambda request: truth) as server:
        controller = make(Chosen(server.url))
        with qtbot.waitSignal(controller.answered, timeout=30_000) as answered:
            ask(controller, plan)
        assert len(server.chats()) == 1
    asked, answer = answered.args
    assert asked is case
    assert answer.host == server.url and answer.spec == SPEC
    assert answer.reply == truth and answer.verdict == "pass"
    assert server.chats()[0]["messages"][0]["content"] == answer.prompt


def test_settings_are_read_at_each_question(qtbot, make, plan):
    with StandinOllama() as first, StandinOllama() as second:
        chosen = Chosen(first.url)
        controller = make(chosen)
        with qtbot.waitSignal(controller.answered, timeout=30_000):
            ask(controller, plan)
        chosen.value = BackendSettings(ollama_hosts=(second.url,), timeout=10)
        with qtbot.waitSignal(controller.answered, timeout=30_000) as answered:
            ask(controller, plan)
        assert (len(first.chats()), len(second.chats())) == (1, 1)
    assert answered.args[1].host == second.url


def test_a_silent_host_fails_in_one_line_while_the_gui_runs(qtbot, make, plan):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # accepts connections, never replies
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        controller = make(Chosen(url, timeout=1.0))
        ticks: list[int] = []
        timer = QTimer()
        timer.timeout.connect(lambda: ticks.append(1))
        timer.start(50)
        with qtbot.waitSignal(controller.failed, timeout=30_000) as failed:
            ask(controller, plan)
        timer.stop()
    case, spec, message = failed.args
    assert case is plan.executions[0].case and spec == SPEC
    assert "no Ollama server answers" in message and url in message and "\n" not in message
    assert len(ticks) >= 5  # the loop kept turning while the host stayed silent


def test_a_new_question_abandons_the_one_in_flight(qtbot, make, plan):
    with StandinOllama({"gemma3:1b": Script(delay=3.0)}) as server:
        controller = make(Chosen(server.url))
        slow = ask(controller, plan)
        wait_for(qtbot, lambda: bool(server.chats()), 30)  # the slow question is in flight
        answers: list = []
        controller.answered.connect(lambda case, answer: answers.append(answer))
        with qtbot.waitSignal(controller.answered, timeout=30_000):
            fast = ask(controller, plan, "oracle")
        wait_for(qtbot, slow.done, 30)
    assert slow.cancelled() and fast.done()
    assert [a.spec for a in answers] == ["oracle"]


def test_the_teach_tab_asks_the_host_set_in_settings(qtbot, qloop, settings, plan):
    case_truth: dict[str, str] = {}

    def answer(request) -> str:
        return case_truth["reply"]

    with StandinOllama({"gemma3:1b": Script()}, answer=answer) as server:
        settings.save_preferences(Preferences(ollama_host=server.url, timeout=10.0))
        window = MainWindow(settings)
        qtbot.addWidget(window)
        window.show()
        open_env(qtbot, window, "frozen_lake")
        teach = window.teach_view
        window.show_tab("teach")
        teach.category.setCurrentIndex(teach.category.findData("satisfy"))
        wait_for(qtbot, lambda: teach.ready and teach.lesson is not None, 60)
        wait_for(qtbot, lambda: teach.lesson.case.category == "satisfy", 60)
        case_truth["reply"] = OracleBackend(window.model.oracle).reply_text(teach.lesson.case)
        teach.llm.addItem(SPEC, SPEC)  # as if stored results named it, with no row for this case
        teach.llm.setCurrentIndex(teach.llm.findData(SPEC))
        teach.reveal()
        teach.reveal()
        wait_for(qtbot, lambda: "asked live" in teach.reply_card.body.text(), 30)
        assert len(server.chats()) == 1
        text = teach.reply_card.body.text()
        assert text.startswith(f"{SPEC} replied:") and "Verdict: PASS" in text
        window.close()

"""The window's logic that left ``main_window.py``: Qt-free, so tested without a widget —
the time left per LLM, the Campaign tab's category marks, the status bar's words."""

from __future__ import annotations

from types import SimpleNamespace

from explaincheck.core.campaign.progress import Progress
from explaincheck.core.taxonomy.base import RequestOffer
from explaincheck.core.taxonomy.registry import Applicability
from explaincheck.core.workspace.presentation.category_marks import (
    DEGENERATE_MARK,
    base_title,
    category_mark,
)
from explaincheck.core.workspace.presentation.run_clock import RunClock
from explaincheck.core.workspace.presentation.window_text import (
    planned_text,
    policy_text,
    regraded_text,
)


def progress(done: int, last, eta: float | None = 99.0) -> Progress:
    return Progress(
        total=10, done=done, passed=done, failed=0, invalid=0, errors=0, resumed=0,
        elapsed=1.0, rate=1.0, eta=eta, last=last,
    )  # fmt: skip


def answer(llm: str, latency: float | None, verdict: str = "pass") -> SimpleNamespace:
    return SimpleNamespace(llm=llm, latency=latency, verdict=verdict)


def test_the_clock_follows_each_llm_and_formats_as_the_terminal_does():
    clock = RunClock()
    assert clock.follow(progress(0, None, eta=125.4)).eta == "02:05"  # no plan: pooled rate
    clock.plan({"random": 5, "ollama:slow": 5}, {"random": 4, "ollama:slow": 1})
    clock.follow(progress(1, answer("random", 0.0)))
    assert clock.follow(progress(1, answer("random", 0.0))).eta == "--:--"  # slow not timed
    left = clock.follow(progress(3, answer("ollama:slow", 1000.0)))
    # 4 slow answers left at 1000 s each, one at a time: 4000 s, past an hour
    assert left.eta == "1:06:40"
    assert left.per_llm.splitlines() == ["random: 00:00 left", "ollama:slow: 1:06:40 left"]
    errored = clock.follow(progress(3, answer("ollama:slow", None, verdict="error")))
    assert errored.eta == "1:06:40"  # an error stays to do


FOUND = Applicability("x", None)
OFFER = RequestOffer("on request", "tip")


def test_category_marks_follow_the_model_and_the_users_ticks():
    plain = category_mark("ranking", "Full ranking?", FOUND, None, {}, None)
    assert (plain.text, plain.enabled, plain.ticked) == ("Full ranking?", True, True)
    unticked = category_mark("ranking", "Full ranking?", FOUND, None, {}, {"satisfy"})
    assert not unticked.ticked
    missing = category_mark("bottleneck", "B", Applicability("bottleneck", "none"), None, {}, None)
    assert (missing.enabled, missing.ticked, missing.tip) == (False, False, "none")
    assert missing.text == "B  — not applicable"
    repeats = category_mark(
        "safer", "S", Applicability("safer", None, "as satisfy"), None, {}, None
    )
    assert repeats.enabled and not repeats.ticked  # left out unless asked for
    assert category_mark(
        "safer", "S", Applicability("safer", None, "c"), None, {}, {"safer"}
    ).ticked
    idle = category_mark("ranking", "R", FOUND, None, {"ranking": "all tied"}, None)
    assert idle.text.startswith(DEGENERATE_MARK) and idle.ticked and "all tied" in idle.tip
    assert base_title(idle.text) == "R"
    offered = category_mark("factors", "F", Applicability("factors", "no"), OFFER, {}, None)
    assert (offered.text, offered.enabled, offered.ticked) == ("F  — on request", True, False)
    # any category with an offer, not one id: the offer alone decides
    costly = category_mark("costly", "C", Applicability("costly", "no"), OFFER, {"costly"}, None)
    assert (costly.text, costly.tip, costly.enabled) == ("C  — on request", "tip", True)
    assert not category_mark("factors", "F", Applicability("factors", "no"), None, {}, None).enabled


def test_status_words():
    assert planned_text(12, {}) == "Campaign: 12 executions planned"
    assert planned_text(3, {"ranking": 1, "safer": 2}).endswith("· skipped: ranking, safer")
    assert regraded_text(40, 3, "half") == (
        "40 replies graded again under the half rule: 3 changed verdict"
    )
    assert policy_text("p.csv", 0.5, 0.25, 0, "uniform") == (
        "Policy p.csv: V^π(s0) = 0.5, value loss 0.25"
    )
    assert policy_text("p.csv", 0.5, 0.25, 2, "uniform").endswith(
        " (2 states by the default uniform)"
    )

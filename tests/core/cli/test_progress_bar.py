"""The terminal bar's ETA is per LLM, the slowest one's (as in the window): instant baseline
answers do not make a slow model's remaining work look short."""

from __future__ import annotations

import io
from types import SimpleNamespace

from explaincheck.core.campaign.eta import EtaEstimator
from explaincheck.core.campaign.progress import Progress
from explaincheck.core.cli.progress_bar import TerminalProgress, line


def progress(done: int, last, eta: float) -> Progress:
    return Progress(
        total=20, done=done, passed=done, failed=0, invalid=0, errors=0, resumed=0,
        elapsed=10.0, rate=done / 10.0, eta=eta, last=last,
    )  # fmt: skip


def test_the_bar_shows_the_slowest_llm_s_time_left_not_one_rate():
    stream = io.StringIO()
    bar = TerminalProgress(stream, interval=0.0)
    bar.estimator = EtaEstimator.start({"random": 10, "local:x": 10}, {"random": 1, "local:x": 1})
    done = 0
    for _ in range(10):  # the baseline answers at once
        done += 1
        bar(progress(done, SimpleNamespace(llm="random", latency=0.001, verdict="pass"), 1.0))
    done += 1  # the model answers once, in 10 s: 9 more answers are 90 s
    bar(progress(done, SimpleNamespace(llm="local:x", latency=10.0, verdict="pass"), 0.9))
    last = stream.getvalue().strip().splitlines()[-1]
    assert last.endswith("ETA 01:30"), last
    assert line(progress(done, None, 0.9)).endswith("ETA 00:00")  # what one rate said


def test_until_every_llm_answered_once_the_eta_is_unknown():
    stream = io.StringIO()
    bar = TerminalProgress(stream, interval=0.0)
    bar.estimator = EtaEstimator.start({"random": 2, "local:x": 2}, {})
    bar(progress(1, SimpleNamespace(llm="random", latency=0.01, verdict="pass"), 0.1))
    assert stream.getvalue().strip().endswith("ETA --:--")


def test_answers_that_arrive_together_are_drawn_once_the_interval_is_over():
    """24 instant answers arrive within the bar's interval while a local model loads: the line
    shows them once the interval is over, not "0/48" until the model's first answer."""
    import asyncio

    stream = io.StringIO()
    bar = TerminalProgress(stream, interval=0.05)

    async def campaign() -> None:
        bar(progress(0, None, None))
        for done in range(1, 25):
            bar(progress(done, SimpleNamespace(llm="random", latency=0.0, verdict="pass"), None))
        for _ in range(200):  # the model loads: no event for a while
            await asyncio.sleep(0.01)
            if "24/20" in stream.getvalue():
                break

    asyncio.run(campaign())
    lines = stream.getvalue().splitlines()
    assert [line.split("]")[1].split()[0] for line in lines] == ["0/20", "24/20"]

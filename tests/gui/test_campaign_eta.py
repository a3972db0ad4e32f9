"""The campaign progress shows the per-LLM ETA: instant baselines do not shorten it."""

from __future__ import annotations

from types import SimpleNamespace

from explaincheck.core.campaign.progress import Progress


def progress(done: int, total: int, last) -> Progress:
    return Progress(
        total=total,
        done=done,
        passed=done,
        failed=0,
        invalid=0,
        errors=0,
        resumed=0,
        elapsed=5.0,
        rate=done / 5.0,  # the pooled rate: 4 per second, "ETA 00:01"
        eta=(total - done) / (done / 5.0),
        last=last,
    )


def record(**fields):
    """A stored execution as the progress events carry it (no usage: costs nothing)."""
    usage = {"cached": False, "reply": "{}", "prompt_tokens": None, "completion_tokens": None}
    return SimpleNamespace(**usage, **fields)


def test_eta_is_the_slowest_llms_time_left(window):
    window.campaign_run.llm_plan({"random": 20, "ollama:slow": 4}, {"random": 4, "ollama:slow": 1})
    done = 0
    for _ in range(19):
        done += 1
        window.campaign_run.progress(
            progress(done, 24, record(llm="random", latency=0.0, verdict="fail"))
        )
    done += 1
    window.campaign_run.progress(
        progress(done, 24, record(llm="ollama:slow", latency=5.0, verdict="pass"))
    )
    text = window.campaign_view.progress_text.text()
    # 3 slow answers left at 5 s each, one at a time: 15 s (the pooled rate said 1 s)
    assert "ETA 00:15" in text, text
    assert "ollama:slow: 00:15 left" in window.campaign_view.progress_text.toolTip()
    # an error is timed but stays to do
    window.campaign_run.progress(
        progress(done, 24, record(llm="ollama:slow", latency=None, verdict="error"))
    )
    assert "ETA 00:15" in window.campaign_view.progress_text.text()

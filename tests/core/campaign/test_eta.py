"""Per-LLM ETA: instant baselines do not hide a slow LLM's remaining time."""

from __future__ import annotations

import pytest

from explaincheck.core.campaign.eta import (
    EtaEstimator,
    LlmPace,
    campaign_eta,
    format_duration,
    llm_eta,
)


def test_instant_baselines_do_not_skew_the_estimate():
    eta = EtaEstimator.start({"random": 30, "oracle": 30, "ollama:slow": 30}, {"ollama:slow": 2})
    for _ in range(25):
        eta.record("random", 0.0)
        eta.record("oracle", 0.001)
    for _ in range(4):
        eta.record("ollama:slow", 4.0)
    # the slow LLM has 26 left at 4 s each, two at a time: 52 s (a pooled rate would say ~3 s)
    assert eta.eta() == pytest.approx(26 * 4.0 / 2)
    assert eta.per_llm()["random"] == pytest.approx(0.0)


def test_unknown_until_every_llm_with_work_is_timed():
    eta = EtaEstimator.start({"random": 3, "ollama:slow": 3}, {})
    eta.record("random", 0.0)
    assert eta.eta() is None
    eta.record("ollama:slow", 2.0)
    assert eta.eta() == pytest.approx(2 * 2.0)


def test_errors_are_timed_but_stay_remaining():
    eta = EtaEstimator.start({"x": 2}, {"x": 1})
    eta.record("x", 3.0, finished=False)
    assert eta.paces["x"].remaining == 2
    assert eta.eta() == pytest.approx(6.0)


def test_edge_cases():
    assert llm_eta(LlmPace(0), 4) == 0.0
    assert llm_eta(LlmPace(5), 4) is None
    # concurrency above the work left does not make it faster than one answer
    assert llm_eta(LlmPace(1, answered=1, seconds=10.0), 8) == pytest.approx(10.0)
    assert campaign_eta({}, {}) == 0.0
    done = EtaEstimator.start({"a": 1}, {})
    done.record("a", None)
    assert done.eta() == 0.0


def test_one_time_left_format_for_the_terminal_and_the_window():
    # MM:SS under an hour, H:MM:SS from an hour on, seconds cut (not rounded), unknown as --:--
    assert format_duration(307.9) == "05:07"
    assert format_duration(59) == "00:59"
    assert format_duration(3600 + 62) == "1:01:02"
    assert format_duration(None) == "--:--"

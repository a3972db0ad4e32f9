"""Handouts: one self-contained page, every text escaped, the report's CSP."""

from __future__ import annotations

from explaincheck.core.environments.registry import resolve
from explaincheck.core.taxonomy.teaching import lesson
from explaincheck.core.workbench.bellman import bellman_view
from explaincheck.core.workbench.handout import (
    HandoutSection,
    bellman_section,
    lesson_section,
    path_section,
    render_handout,
)
from explaincheck.core.workbench.simulator import Simulation


def test_lesson_path_and_bellman(lake):
    _, oracle, transitions = lake
    sim = Simulation(oracle, seed=3, transitions=transitions)
    sim.step("down", outcome=4 if 4 in oracle.state(0).successors["down"] else None)
    taught = lesson(oracle, resolve("frozen_lake"), "best_action", 13, 0.5)
    page = render_handout(
        "Frozen Lake",
        [
            lesson_section(taught),
            path_section(sim),
            bellman_section(bellman_view(oracle, transitions, 13)),
        ],
    )
    assert "default-src 'none'" in page and "<script" not in page
    assert "1/3·15/17 + 1/3·16/17 + 1/3·1 = 16/17" in page
    assert "seed 3" in page and "Question:" in page
    assert "http://" not in page and "https://" not in page  # nothing fetched


def test_untrusted_text_is_escaped():
    reply = '<img src=x onerror="alert(1)">\x1b[31m'
    page = render_handout(
        "<b>t</b>", [HandoutSection(reply, (reply,), (reply,), (("h",), (reply,)))]
    )
    assert "<img src=x" not in page and "<b>t</b>" not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page
    assert "\x1b" not in page

"""docs/method.md's RQ1 figures are generated (issue 35, point 8): the marked block is the
rendering of the stored benchmark numbers, and (slow) those numbers are what the benchmark
computes on this code."""

from __future__ import annotations

import json

import pytest
from benchmark_script import load


def _script():
    return load("method_figures")


def test_the_block_in_method_md_is_the_rendering_of_the_stored_figures():
    figures = _script()
    stored = json.loads(figures.DATA.read_text(encoding="utf-8"))
    text = figures.DOC.read_text(encoding="utf-8")
    assert text.count(figures.BEGIN) == 1 and text.count(figures.END) == 1
    assert figures.block_of(text) == figures.render(stored)
    assert figures.rewrite(text, figures.render(stored)) == text


def test_a_rewrite_replaces_only_the_block():
    figures = _script()
    text = f"before\n{figures.BEGIN}\nold numbers\n{figures.END}\nafter\n"
    assert figures.rewrite(text, "NEW") == "before\nNEW\nafter\n"
    with pytest.raises(ValueError, match="markers"):
        figures.rewrite("no markers here", "NEW")


@pytest.mark.slow
def test_the_stored_figures_are_what_the_benchmark_computes():
    figures = _script()
    stored = json.loads(figures.DATA.read_text(encoding="utf-8"))
    assert figures.render(figures.compute()) == figures.render(stored)

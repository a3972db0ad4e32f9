"""``strip_thinking`` in linear time, with exactly the results of the regular expression it
replaced (which took minutes on thousands of unclosed ``<think>`` tags)."""

from __future__ import annotations

import random
import re

import pytest

from explaincheck.core.taxonomy.parsing import find_value, strip_thinking

_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"</?(think|thinking|reasoning)>", re.IGNORECASE)
_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)


def reference(text: str) -> str:
    """The former (quadratic) definition, fine on short texts."""
    text = _BLOCK.sub(" ", text)
    closing = [m.end() for m in _CLOSE.finditer(text)]
    if closing:
        text = text[closing[-1] :]
    return _TAG.sub(" ", text)


def test_same_results_as_the_regular_expression():
    parts = ["<think>", "</think>", "<THINK>", "</Thinking>", "<thinking>", "<reasoning>"]
    parts += ["</reasoning>", "a", '{"x": 1}', " ", "</thi", "nk>", "\n"]
    rng = random.Random(7)
    for _ in range(5000):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(0, 14)))
        assert strip_thinking(text) == reference(text), repr(text)


@pytest.mark.timeout(120)  # a hang guard: the regex took ~18 s on the first one, quadratic
def test_hostile_tag_floods_take_linear_time():
    for text in ("<think>" * 60_000, "</think>" * 60_000, "<think>" * 30_000 + "</think>"):
        assert find_value(text + '{"answer": 1}', "answer") is not None


def test_reasoning_is_still_removed():
    assert find_value('<think>{"answer": 0}</think>{"answer": 1}', "answer") == (1, "")
    assert find_value('{"answer": 0}</think>{"answer": 2}', "answer") == (2, "")

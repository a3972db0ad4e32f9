"""The Teach tab's step 3 as plain data: which stored reply belongs to the case on screen, and
how a reply reads (no widget needed)."""

from __future__ import annotations

from types import SimpleNamespace

from explaincheck.core.workspace.presentation.teach.replies import reply_text, stored_reply

ORACLE = SimpleNamespace(model=SimpleNamespace(content_hash="h1"))
CASE = SimpleNamespace(category="safer", states=(3, 5))


def row(**fields):
    base = {"llm": "m", "category": "safer", "states": [3, 5], "model_hash": "h1"}
    return {**base, **fields}


def test_the_stored_reply_is_the_same_llm_case_and_model():
    wanted = row(reply="the one")
    rows = [
        row(llm="other"),
        row(category="satisfy"),
        row(states=[5, 3]),  # the order of a pair is part of the case
        row(model_hash="h2"),  # another file of the same name
        wanted,
        row(reply="a later repeat"),
    ]
    assert stored_reply(rows, "m", CASE, ORACLE) is wanted
    assert stored_reply(rows[:4], "m", CASE, ORACLE) is None
    assert stored_reply(rows, "m", CASE, None) is None  # no model open


def test_a_reply_reads_with_its_thinking_cut_and_its_verdict():
    text = reply_text("m", {"reply": "x", "thinking": "t" * 450, "verdict": "fail", "reason": "r"})
    assert text.startswith("m replied:\nx\n\n")
    assert f"(thinking: {'t' * 400}…)" in text
    assert text.endswith("Verdict: FAIL — r")
    long = reply_text("m", {"reply": "y" * 10_000, "verdict": "pass", "reason": ""})
    assert len(long) < 4_000 and "see the Results tab" in long

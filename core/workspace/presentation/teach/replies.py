"""Step 3 of the Teach tab as plain data: the stored reply of an LLM to the case on the screen,
and the text that shows a reply (capped, with its thinking and verdict)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.long_text import capped


def same_model(row: Mapping[str, Any], oracle: OracleResult | None) -> bool:
    """Whether a stored row was graded on this oracle's model (its ``model_hash`` is the
    oracle's content hash: file bytes, constants, labels, method), the Results tab's rule."""
    return oracle is not None and row.get("model_hash") == oracle.model.content_hash


def stored_reply(
    rows: Iterable[dict[str, Any]], spec: str, case: Any, oracle: Any
) -> dict[str, Any] | None:
    """The first stored execution of ``spec`` on this case (same category, states, model)."""
    for row in rows:
        if (
            row.get("llm") == spec
            and row.get("category") == case.category
            and list(row.get("states") or []) == list(case.states)
            and same_model(row, oracle)
        ):
            return row
    return None


def reply_text(spec: str, row: Mapping[str, Any]) -> str:
    """The reply (long ones cut: the Results tab has them whole), its thinking, its verdict."""
    thinking = str(row.get("thinking") or "")
    reply = capped(str(row.get("reply")), 3_000, 500, "see the Results tab").text
    text = f"{spec} replied:\n{reply}\n\n"
    if thinking:
        text += f"(thinking: {thinking[:400]}{'…' if len(thinking) > 400 else ''})\n\n"
    return text + f"Verdict: {str(row.get('verdict')).upper()} — {row.get('reason')}"


def live_text(answer: Any) -> str:
    """A reply asked live (``core.campaign.session.LiveAnswer``), read like a stored one."""
    row = {
        "reply": answer.reply,
        "thinking": answer.thinking,
        "verdict": answer.verdict,
        "reason": answer.reason,
    }
    return reply_text(answer.spec, row) + "  (asked live)"

"""The words of one execution in full, as the case detail shows them: the header line, the
grade's reason, the prompt, the reply (capped; the rest on request), the thinking, the parsed
answer beside the expected one, and the oracle's facts behind the case. Qt-free: the detail
puts each text into a plain-text widget as it is (an LLM's reply is untrusted text)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.long_text import capped
from explaincheck.core.workspace.presentation.results.rows import Row, field, states_text
from explaincheck.core.workspace.presentation.valuation import valuation_text

NO_CASE = "Select an execution to see it in full."
NO_ORACLE = "Open this case's environment to see the oracle values behind it."


@dataclass(frozen=True)
class CaseText:
    """Each box of the case detail."""

    header: str
    reason: str
    prompt: str
    question: str  # the prompt's question (its last paragraph): what the case view shows first
    reply: str
    reply_shortened: bool  # the reply box holds only its start: offer the whole reply
    thinking: str
    answers: str
    oracle: str


EMPTY = CaseText(NO_CASE, "", "", "", "", False, "", "", "")


ONE_LINE = 80  # an answer whose JSON is no longer than this stays on one line


def pretty(value: Any) -> str:
    """An answer or expected value as JSON (text as it is, a missing one as a dash): on one
    line when short (``{"answer": "no"}``), indented when long (a ranking, a subset)."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    line = json.dumps(value, ensure_ascii=False, sort_keys=False)
    if len(line) <= ONE_LINE:
        return line
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


def question_of(prompt: str) -> str:
    """The question a prompt asks: its last paragraph (``prompts.render_prompt`` ends every
    prompt with the category's question and the answer's form), or the last two when the last
    is the answer's form alone; a prompt of one paragraph is its own question."""
    paragraphs = [p for p in prompt.strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:
        return prompt.strip()
    last = paragraphs[-1]
    if last.startswith("Respond only") and len(paragraphs) > 2:
        return "\n\n".join(paragraphs[-2:])
    return last


def state_letters(prompt: str, count: int) -> list[str]:
    """The letters a prompt calls a case's states ("State K: ..."), in the case's order; []
    when the prompt names none, or not one per state."""
    found = re.findall(r"^State ([A-Z]{1,2}): ", prompt, flags=re.MULTILINE)
    return found if len(found) == count else []


def oracle_lines(
    oracle: OracleResult | None,
    states: list[int],
    variables: Mapping[str, str] | None = None,
    letters: list[str] | None = None,
) -> str:
    """The oracle facts behind a case, four lines per state (which it is, its values, its Q
    values, its best and worst actions): a subset of four states fits a laptop's case view.
    ``letters``: what the prompt calls each state ("K = state 13")."""
    if oracle is None:
        return NO_ORACLE
    lines = []
    names = letters if letters and len(letters) == len(states) else [""] * len(states)
    for state_id, letter in zip(states, names, strict=True):
        called = f"{letter} = " if letter else ""
        if not 0 <= state_id < len(oracle.states):
            lines.append(f"{called}state {state_id}: not in the open model")
            continue
        f = oracle.states[state_id]
        valuation = valuation_text(f.valuation, variables)
        flags = [
            n
            for n, on in (
                ("bottleneck", f.bottleneck),
                ("dead end", f.dead_end),
                ("goal", f.is_goal),
                ("unsafe", f.is_unsafe),
            )
            if on
        ]
        kind = f": {', '.join(flags)}" if flags else ""
        lines.append(f"{called}state {f.id} ({valuation}){kind}")
        danger = f"   D = {f.danger:.4g}" if f.danger is not None else ""
        lines.append(f"  V = {f.value:.4g}{danger}   C_B = {f.centrality:.3g}")
        if f.q:
            q = ", ".join(f"{a} {v:.4g}" for a, v in sorted(f.q.items(), key=lambda kv: -kv[1]))
            lines.append(f"  Q: {q}")
            lines.append(f"  A* = {{{', '.join(f.best)}}}   A° = {{{', '.join(f.worst)}}}")
    return "\n".join(lines)


def case_text(
    row: Row | None,
    oracle: OracleResult | None = None,
    variables: Mapping[str, str] | None = None,
) -> CaseText:
    """The detail's texts of ``row`` (a ``StoredExecution`` or a dict row); ``oracle`` only when
    the row was graded on it (``rows.same_model``)."""
    if row is None:
        return EMPTY
    verdict = str(field(row, "verdict") or "").upper()
    delta = field(row, "delta")
    header = (
        f"{verdict} · {field(row, 'llm')} · {field(row, 'category')} · "
        f"{field(row, 'selection')} · state(s) {states_text(field(row, 'states'))}"
        f" · δ = {float(delta or 0):.3f} · repeat {field(row, 'repeat')}"
    )
    reply = field(row, "reply")
    shown = capped("" if reply is None else str(reply), hint="“Show full reply…” has it all")
    answers = (
        f"answer:   {pretty(field(row, 'answer'))}\nexpected: {pretty(field(row, 'expected'))}"
    )
    answers = capped(answers, 5_000, 1_000).text
    if field(row, "abs_error") is not None:
        answers += f"\n|error|:  {float(field(row, 'abs_error')):.4g}"
    if field(row, "error"):
        answers += f"\nerror:    {field(row, 'error')}"
    states = [int(s) for s in (field(row, "states") or [])]
    prompt = capped(str(field(row, "prompt") or "")).text
    return CaseText(
        header=header,
        reason=capped(str(field(row, "reason") or ""), 2_000, 500).text,
        prompt=prompt,
        question=question_of(prompt),
        reply="(no reply)" if reply is None else shown.text,
        reply_shortened=shown.shortened,
        thinking=capped(str(field(row, "thinking") or "")).text,
        answers=answers,
        oracle=oracle_lines(oracle, states, variables, state_letters(prompt, len(states))),
    )

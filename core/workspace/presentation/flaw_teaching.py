"""What a reference explainer with a known flaw answers for a Teach case, and the values behind
it, beside the oracle's: a lecture can show how a plausible but wrong picture of the model
leads to a wrong answer (and on which cases it happens to be right).

The answer is the flawed backend's own (``flaw_backend.picture_answer`` on ``flawed_oracle``),
graded against the true oracle exactly as a campaign grades it, so the Teach view never shows a
second, hand-made version of a flaw. Runs on a worker thread: ``myopic`` asks Storm.
"""

from __future__ import annotations

from dataclasses import dataclass

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import PREFERENCE, TestCase
from explaincheck.core.taxonomy.kinds import QuantityPairCategory
from explaincheck.core.taxonomy.registry import category

SHOWN_ACTIONS = 6  # Q̂ values listed per state (a state may have many actions)


@dataclass(frozen=True)
class FlawedAnswer:
    """A flawed explainer's answer to one case, in words, with its values and its grade."""

    spec: str
    explanation: str  # the flaw in one line
    answer: str
    values: tuple[str, ...]  # V̂ (and D̂ or Q̂ where the category uses them) next to the truth
    verdict: str  # graded against the true oracle: pass, fail or invalid

    @property
    def text(self) -> str:
        lines = [
            f"{self.spec} — {self.explanation}",
            "",
            f"Answer: {self.answer}   ({self.verdict.upper()} against the oracle)",
            "",
            *self.values,
        ]
        return "\n".join(lines)


def explanation(spec: str) -> str:
    """The flaw's one-line description (``flaw:myopic:K`` with its K filled in)."""
    from explaincheck.core.backends.registry import KINDS

    return KINDS["flaw"].description(spec)


def _number(value: float | None) -> str:
    return "—" if value is None else f"{float(value):.4g}"


def value_lines(case: TestCase, truth: OracleResult, picture: OracleResult) -> list[str]:
    """Per state of the case: V̂ beside the true V; D̂ for danger questions, Q̂ for action ones."""
    lines = []
    asked = category(case.category)
    for state_id in case.states:
        seen, real = picture.state(state_id), truth.state(state_id)
        line = f"state {state_id}: V̂ = {_number(seen.value)}  (true V = {_number(real.value)})"
        if isinstance(asked, QuantityPairCategory) and asked.quantity == "danger":
            line += f";  D̂ = {_number(seen.danger)}  (true D = {_number(real.danger)})"
        lines.append(line)
        if asked.dimension == PREFERENCE and seen.q:
            for action, value in list(seen.q.items())[:SHOWN_ACTIONS]:
                true_q = real.q.get(action)
                lines.append(f"    Q̂({action}) = {_number(value)}  (true Q = {_number(true_q)})")
    return lines


def flawed_answer(truth: OracleResult, spec: str, case: TestCase) -> FlawedAnswer:
    """``spec``'s answer to ``case`` and the values behind it (worker thread)."""
    from explaincheck.core.backends.flaw_backend import (
        FlawedBackend,
        picture_answer,
        picture_reply,
    )
    from explaincheck.core.oracle.flawed import parse_flaw
    from explaincheck.core.taxonomy.grading import grade_reply

    flaw = parse_flaw(spec.removeprefix("flaw:"))
    picture = FlawedBackend(truth, flaw).picture  # with its categories' facts seen through it
    answer = picture_answer(case, picture)
    grade = grade_reply(case, picture_reply(case, picture, flaw.belief, truth), truth)
    return FlawedAnswer(
        spec=spec,
        explanation=explanation(spec),
        # the picture's own answer (not the set it would accept: that reads as "right")
        answer=category(case.category).answer_words(answer, {}),
        values=tuple(value_lines(case, truth, picture)),
        verdict=str(grade.verdict),
    )

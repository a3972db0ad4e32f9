"""Grading a reply: read it as the case's answer form, then let the category judge it.

Unreadable replies get verdict ``invalid`` with the reason kept (and the expected answer, so a
report can show both); a reply is never evaluated and reading never raises. A pass or fail
that could flip inside the oracle's intervals (verified method) becomes ``uncertain``
(``uncertainty.py``: the one place that reads intervals).
"""

from __future__ import annotations

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import INVALID, Grade, GradingSettings, TestCase
from explaincheck.core.taxonomy.parsing import parse_reply
from explaincheck.core.taxonomy.registry import category as category_by_id
from explaincheck.core.taxonomy.uncertainty import respecting_intervals


def grade_reply(
    case: TestCase,
    reply_text: str,
    oracle: OracleResult,
    settings: GradingSettings | None = None,
) -> Grade:
    """The verdict on ``reply_text`` as an answer to ``case``."""
    category = category_by_id(case.category)
    parsed = parse_reply(reply_text, category.answer_form(case, oracle))
    if not parsed.ok:
        return Grade(INVALID, parsed.reason, None, category.expected(case, oracle))
    settings = settings or GradingSettings()
    grade = category.judge(parsed.value, case, oracle, settings)
    return respecting_intervals(grade, parsed.value, category, case, oracle, settings)

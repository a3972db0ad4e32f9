"""The follow-up probes of the registered categories, in words for the front ends' help texts
(``run --behavioural`` and the Campaign tab's check box), so neither names a category."""

from __future__ import annotations

from collections.abc import Iterable

from explaincheck.core.taxonomy.base import Category
from explaincheck.core.taxonomy.registry import CATEGORIES


def with_follow_ups(categories: Iterable[Category]) -> list[Category]:
    """The categories that ask follow-up probes after a run (``follow_up_trials`` > 0)."""
    return [c for c in categories if c.follow_up_trials > 0]


def follow_up_help(categories: Iterable[Category] | None = None) -> str:
    """ "after a complete run, ask the follow-up probes of the categories that have them
    (factors: …)", one parenthesis per such category (default: every registered one)."""
    if categories is None:
        categories = CATEGORIES.values()
    parts = [
        f"{c.id}: {c.follow_up_words}, {c.follow_up_help or 'asked again after the run'}"
        for c in with_follow_ups(categories)
    ]
    text = "after a complete run, ask each LLM the follow-up probes of the categories that have"
    text += " them"
    return f"{text} ({'; '.join(parts)})" if parts else text

"""The Teach tab's presentation workspace, Qt-free (issue 36 point 2): what its views show and
every computation they used to start. The views import from here (and plain types) only:
``categories`` (the registry's lookups), ``workspace`` (``TeachWorkspace``: the cases, the
lesson and its steps, the flawed answer, the reply), ``replies`` (a stored or live reply in
words), ``live`` (``LiveQuestion``: one case asked live) and ``factors`` (the factor panel's
words, sources and state)."""

from __future__ import annotations

from explaincheck.core.workspace.presentation.flaw_teaching import FlawedAnswer, explanation
from explaincheck.core.workspace.presentation.teach.categories import (
    adds_facts,
    category,
    facts_words,
    shown_by,
    taught_choices,
)
from explaincheck.core.workspace.presentation.teach.live import LiveQuestion
from explaincheck.core.workspace.presentation.teach.workspace import (
    NEXT_TEXT,
    ORDERINGS,
    REVEAL_TEXT,
    Case,
    FactorCase,
    Lesson,
    TeachCards,
    TeachWorkspace,
    llm_entries,
)

__all__ = [
    "NEXT_TEXT",
    "ORDERINGS",
    "REVEAL_TEXT",
    "Case",
    "FactorCase",
    "FlawedAnswer",
    "Lesson",
    "LiveQuestion",
    "TeachCards",
    "TeachWorkspace",
    "adds_facts",
    "category",
    "explanation",
    "facts_words",
    "llm_entries",
    "shown_by",
    "taught_choices",
]

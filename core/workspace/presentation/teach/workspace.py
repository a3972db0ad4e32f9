"""The Teach tab without Qt: the model it teaches on, the chosen category and order, the cases,
the lesson on screen and its step, a flawed explainer's answer beside the oracle's, and the
LLM's reply (stored, or asked live) (issue 36: the view used to compute all of these).

One case at a time: step 1 shows the situation and the question, step 2 the oracle's answer and
why (a run on the graph; a flawed explainer's answer when one is chosen; the factor panel of a
``factors`` case), step 3 the LLM's reply. The view shows ``cards()`` and forwards the user's
choices; everything it used to start runs here: the category's extra facts and the cases (on
the ``offload`` thread), the flawed answer (``myopic`` asks Storm), the live question (on the
caller's loop, through ``LiveQuestion``). Background work is started through ``start`` (the
GUI's ``Tasks.start``, so the window knows when it is busy). Events, emitted on the caller's
thread: ``changed()`` (show ``cards()`` again), ``case_shown(states)`` (a new case: highlight
its states), ``path_shown(path)`` (the run to draw, [] clears) and
``factors_changed(FactorCase | None)`` (what the factor panel shows).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.teaching import Case, Lesson, lesson, stepping_order
from explaincheck.core.workspace.events import Event
from explaincheck.core.workspace.presentation.flaw_teaching import FlawedAnswer, flawed_answer
from explaincheck.core.workspace.presentation.teach.categories import (
    adds_facts,
    category,
    facts_words,
    taught_choices,
    with_facts,
)
from explaincheck.core.workspace.presentation.teach.factors import has_factor_panel, lesson_row
from explaincheck.core.workspace.presentation.teach.live import LiveQuestion, Starter, start_here
from explaincheck.core.workspace.presentation.teach.replies import (
    live_text,
    reply_text,
    stored_reply,
)

REVEAL_TEXT = "Reveal ▸"
NEXT_TEXT = "Next case ▶"
PRESS_REVEAL = "(press Reveal)"
ORDERINGS = (("most diagnostic first (δ)", "delta"), ("by state id", "id"))

Offload = Callable[..., Awaitable[Any]]  # runs a blocking function off the caller's thread


@dataclass(frozen=True)
class TeachCards:
    """What the tab shows: the four cards, the position and the Reveal button's text."""

    question: str
    oracle: str
    flaw: str
    reply: str
    position: str
    reveal: str
    flaw_shown: bool  # a flawed explainer is chosen: its card is shown


@dataclass(frozen=True)
class FactorCase:
    """What the factor panel shows for a ``factors`` case: the case as a row (with the chosen
    LLM's stored citations once its reply is revealed), its oracle and model."""

    row: dict[str, Any]
    oracle: OracleResult
    environment: Environment | None
    db_path: str | None


def live_kind(spec: str) -> bool:
    """Whether the backend registry says ``spec`` can be asked one question on demand."""
    from explaincheck.core.backends.registry import kind_of

    kind = kind_of(spec)
    return kind is not None and kind.live


def llm_entries(stored: Iterable[str], live: Iterable[str]) -> list[tuple[str, str]]:
    """(text, spec) of the LLM box: the LLMs of the results file, then the answerers asked on
    the spot (no LLM needed) that the file does not hold."""
    stored = list(stored)
    entries = [(f"{spec} (stored)", spec) for spec in stored]
    return entries + [(f"{spec} (ask live)", spec) for spec in live if spec not in stored]


class TeachWorkspace:
    """The Teach tab's state: question → oracle answer and why → LLM reply."""

    def __init__(
        self,
        offload: Offload | None = None,
        start: Starter | None = None,
        rows: Callable[[], Iterable[dict[str, Any]]] | None = None,
        db_path: Callable[[], str | None] | None = None,
        can_ask_live: Callable[[str], bool] | None = None,
        live: LiveQuestion | None = None,
    ) -> None:
        self._offload: Offload = offload or asyncio.to_thread
        self._start: Starter = start or self._start_here
        self._rows = rows or (lambda: ())
        self._db_path = db_path or (lambda: None)
        self._can_ask_live = can_ask_live or live_kind
        self._started: set[asyncio.Task[Any]] = set()
        self.live = live or LiveQuestion(start=self._start)
        self.live.answered.connect(self._live_answered)
        self.live.failed.connect(self._live_failed)
        self._facts: dict[tuple[str, str], OracleResult] = {}
        self.oracle: OracleResult | None = None  # the model's, with the category's facts
        self.environment: Environment | None = None
        choices = taught_choices()
        self.category_id = choices[0][1] if choices else ""
        self.ordering = ORDERINGS[0][1]
        self.llm = ""  # the LLM whose reply step 3 shows
        self.flaw = ""  # the flawed explainer shown beside the oracle ("" none)
        self.order: list[Case] = []
        self.position = 0
        # the window's selected state: a new order of cases starts at the first case holding it
        self.focus: int | None = None
        self.step = 0
        self.lesson: Lesson | None = None
        self.flawed: FlawedAnswer | None = None
        self.ready = True  # no case is being computed
        self.note = ""  # the question card without a lesson (why there is none)
        self.busy_note = ""  # the question card while a category's facts are computed
        self.flaw_note = ""
        self.reply_note = ""
        self.changed = Event("changed")  # (): show cards() again
        self.case_shown = Event("case_shown")  # (tuple[int, ...]): a new case's states
        self.path_shown = Event("path_shown")  # (list[int]): the run to draw ([] clears)
        self.factors_changed = Event("factors_changed")  # (FactorCase | None)

    # -- background work -------------------------------------------------------------------
    def _start_here(self, coroutine: Any, what: str = "task") -> asyncio.Task[Any]:
        task = start_here(coroutine, what)
        self._started.add(task)
        task.add_done_callback(self._started.discard)
        return task

    async def settle(self) -> None:
        """Wait for the work this workspace started on its own loop (tests, scripts)."""
        while self._started:
            await asyncio.gather(*list(self._started), return_exceptions=True)

    # -- the model and the choices ---------------------------------------------------------
    def set_model(self, oracle: OracleResult | None, environment: Environment | None) -> None:
        """A new model: its cases of the chosen category, from the first."""
        self.oracle, self.environment = oracle, environment
        self.reorder(at_focus=True)

    def set_category(self, category_id: str) -> None:
        self.category_id = category_id
        self.reorder()

    def set_ordering(self, ordering: str) -> None:
        self.ordering = ordering
        self.reorder()

    def set_flaw(self, spec: str) -> None:
        """Show ``spec``'s answer beside the oracle's ("" for none)."""
        self.flaw = spec
        self._update_flaw()
        self.changed.emit()

    def reorder(self, at_focus: bool = False) -> None:
        """Compute the cases of the chosen category in the chosen order (off the caller's
        thread); the first one's lesson follows (``at_focus``, a new model's: the first case
        holding the selected state, if any)."""
        if self.oracle is None or self.environment is None:
            self.order, self.lesson, self.ready = [], None, True
            self.changed.emit()
            return
        self.ready = False
        self._start(self._compute_order(self.oracle, self.category_id, at_focus), "teach")

    async def _compute_order(
        self, oracle: OracleResult, category_id: str, at_focus: bool = False
    ) -> None:
        try:
            found = category(category_id)
            if adds_facts(found):  # e.g. factors' exact interventions (isolated, cached)
                self.busy_note = f"Computing {facts_words(found)}…"
                self.changed.emit()
                base = oracle
                oracle = await self._with_facts(category_id, oracle)
                self.busy_note = ""
                if base is not self.oracle:
                    return
                self.oracle = oracle
            order = await self._offload(stepping_order, oracle, category_id)
        except Exception as error:
            self.busy_note = ""
            self.order, self.lesson, self.ready = [], None, True
            self.note = f"This category cannot be taught here: {error}"
            self.changed.emit()
            return
        if oracle is not self.oracle or category_id != self.category_id:
            return
        if self.ordering == "id":
            order.sort()
        self.order = order
        self.position = (self._first_case_with(self.focus) if at_focus else None) or 0
        self._load_lesson()

    async def _with_facts(self, category_id: str, oracle: OracleResult) -> OracleResult:
        """``oracle`` with the category's extra facts, computed once per model and category."""
        found, environment = category(category_id), self.environment
        assert environment is not None  # a model is open when cases are offered
        key = (category_id, oracle.model.content_hash)
        if key not in self._facts:
            self._facts[key] = await self._offload(with_facts, found, environment, oracle)
        return self._facts[key]

    # -- moving between cases --------------------------------------------------------------
    def show_state(self, state_id: int) -> None:
        """Go to the first case with this state (the window's selection), if any; a state that
        is no case of the chosen category leaves the case shown."""
        self.focus = state_id
        found = self._first_case_with(state_id)
        if found is not None:
            self.position = found
            self._load_lesson()

    def _first_case_with(self, state_id: int | None) -> int | None:
        if state_id is None:
            return None
        return next((i for i, (states, _) in enumerate(self.order) if state_id in states), None)

    def case_states(self) -> tuple[int, ...]:
        """The states of the case shown (empty when none is)."""
        if self.lesson is None or not self.order:
            return ()
        return tuple(self.order[self.position][0])

    def move_by(self, step: int) -> None:
        if not self.order:
            return
        self.position = (self.position + step) % len(self.order)
        self._load_lesson()

    def _load_lesson(self) -> None:
        if not self.order or self.oracle is None or self.environment is None:
            self.lesson, self.ready = None, True
            self.note = "No case of this category on this model." if self.oracle else ""
            self.changed.emit()
            self.factors_changed.emit(None)
            return
        states, delta = self.order[self.position]
        try:
            self.lesson = lesson(self.oracle, self.environment, self.category_id, states, delta)
        except Exception as error:
            self.lesson = None
            self.note = f"Cannot present state(s) {', '.join(map(str, states))}: {error}"
        self.step = 1
        self.flawed = None
        self.flaw_note = PRESS_REVEAL if self.flaw else ""
        self.reply_note = ""
        self.path_shown.emit([])
        self.case_shown.emit(tuple(states))
        self.ready = True
        self.changed.emit()
        self.factors_changed.emit(self.factor_case())

    # -- the steps -------------------------------------------------------------------------
    def reveal(self) -> None:
        """The next step (the oracle's answer, then the LLM's reply), or the next case."""
        if self.lesson is None:
            return
        if self.step >= 3:
            self.move_by(1)
            return
        self.step += 1
        if self.step == 2:
            self.path_shown.emit(self.lesson.path)
            self._update_flaw()
        if self.step == 3:
            self._reveal_reply(self.lesson.case)
        self.changed.emit()
        self.factors_changed.emit(self.factor_case())

    def reveal_all(self) -> None:
        while self.lesson is not None and self.step < 3:
            self.reveal()

    def cards(self) -> TeachCards:
        """The cards' texts for the current state (plain text: a reply is never rich text)."""
        total = len(self.order)
        position = f"{self.position + 1} / {total}" if total else "—"
        lesson_ = self.lesson
        if lesson_ is None:
            question = "Open a model to start." if self.oracle is None else self.note
            return TeachCards(
                self.busy_note or question,
                "",
                self.flaw_note,
                "",
                position,
                REVEAL_TEXT,
                bool(self.flaw),
            )
        question = f"{lesson_.situation.strip()}\n\n{lesson_.question}"
        if self.step >= 2:
            answer = f"Answer: {lesson_.answer}\n\n" + "\n".join(lesson_.why)
        else:
            answer = PRESS_REVEAL
        flaw = PRESS_REVEAL if self.step < 2 and self.flaw else self.flaw_note
        waiting = PRESS_REVEAL if self.step == 2 else ""  # the reply is step 3
        reply = self.reply_note if self.step >= 3 else waiting
        return TeachCards(
            self.busy_note or question,
            answer,
            flaw,
            reply,
            position,
            NEXT_TEXT if self.step >= 3 else REVEAL_TEXT,
            bool(self.flaw),
        )

    def factor_case(self) -> FactorCase | None:
        """The factor panel's case once the oracle's answer is shown (with the chosen LLM's
        citations once its reply is revealed); None for other categories and before."""
        lesson_, oracle = self.lesson, self.oracle
        if (
            lesson_ is None
            or oracle is None
            or not has_factor_panel(lesson_.case.category)
            or self.step < 2
        ):
            return None
        stored = self._stored(lesson_.case) if self.step >= 3 else None
        row = lesson_row(lesson_.case.states, oracle, stored)
        return FactorCase(row, oracle, self.environment, self._db_path())

    # -- a flawed explainer beside the oracle ----------------------------------------------
    def _update_flaw(self) -> None:
        """Compute the chosen flawed explainer's answer for this case (off the caller's thread:
        myopic asks Storm) once the oracle's answer is shown."""
        spec = self.flaw
        self.flawed = None
        if not spec or self.lesson is None or self.oracle is None or self.step < 2:
            self.flaw_note = PRESS_REVEAL if spec else ""
            return
        self.flaw_note = f"Asking {spec}…"
        self._start(self._compute_flaw(spec, self.lesson, self.oracle), "flawed answer")

    async def _compute_flaw(self, spec: str, lesson_: Lesson, oracle: OracleResult) -> None:
        try:
            found = await self._offload(flawed_answer, oracle, spec, lesson_.case)
        except Exception as error:
            if lesson_ is self.lesson:
                self.flaw_note = f"{spec} could not answer: {error}"
                self.changed.emit()
            return
        if lesson_ is self.lesson and spec == self.flaw:
            self.flawed = found
            self.flaw_note = found.text
            self.changed.emit()

    # -- the LLM's reply -------------------------------------------------------------------
    def _stored(self, case: TestCase) -> dict[str, Any] | None:
        return stored_reply(self._rows(), self.llm, case, self.oracle)

    def _reveal_reply(self, case: TestCase) -> None:
        """The stored reply of the chosen LLM; else it is asked live, when it can be."""
        spec, row = self.llm, self._stored(case)
        if row is not None:
            self.reply_note = reply_text(spec, row)
        elif self._can_ask_live(spec) and self.oracle is not None and self.environment:
            self.reply_note = f"Asking {spec}…"
            # the Teach oracle: for a factors case it carries the truth the prompt needs
            self.live.ask(spec, case, self.oracle, self.environment)
        else:
            self.reply_note = "No stored reply for this state."

    def _live_answered(self, case: TestCase, answer: Any) -> None:
        if self.lesson is not None and case is self.lesson.case:
            self.reply_note = live_text(answer)
            self.changed.emit()

    def _live_failed(self, case: TestCase, spec: str, message: str) -> None:
        if self.lesson is not None and case is self.lesson.case:
            self.reply_note = f"{spec} could not answer: {message}"
            self.changed.emit()

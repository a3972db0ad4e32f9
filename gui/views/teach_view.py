"""The Teach tab, for projecting in a lecture: one case at a time, step by step.

A case is one state, or the two or more states of a pair or subset question (all highlighted on
the graph). Step 1 shows the situation and the question; step 2 the oracle's answer and why
(values for each state, the optimal action, a bottleneck run on the graph); step 3 reveals an
LLM's reply, from the stored results or asked live (through ``live_requested``: the window's
controller asks with the user's backend settings and answers with ``show_live_answer``). Space
reveals the next step, the arrow keys move between cases.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.teaching import Case, Lesson, lesson, stepping_order
from explaincheck.core.workspace.presentation.flaw_teaching import FlawedAnswer, flawed_answer
from explaincheck.core.workspace.presentation.teach import category as registered
from explaincheck.gui.adapters.category_facts import CategoryFacts, adds_facts, facts_words
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.adapters.teach_replies import reply_text, stored_reply
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views.factor_panel import FactorPanel, has_factor_panel
from explaincheck.gui.views.graph_view import GraphView
from explaincheck.gui.views.llm_choices import LlmChoices
from explaincheck.gui.views.teach_parts import REVEAL_TEXT, AnswerBar, Card, CaseBar

NEXT_TEXT = "Next case ▶"


class TeachView(QWidget):
    """Question → oracle answer and why → LLM reply."""

    state_changed = Signal(int)
    live_requested = Signal(str, object)  # LLM spec, the TestCase to ask it live

    def __init__(
        self,
        results: ResultsData,
        tasks: Tasks,
        parent: QWidget | None = None,
        *,
        answerers: LlmChoices,
    ) -> None:
        super().__init__(parent)
        self.results = results
        self.tasks = tasks
        self.answerers = answerers  # the registered answerers (``gui/backend_choices``)
        self.oracle: OracleResult | None = None
        self.environment: Environment | None = None
        self.order: list[Case] = []
        self.position = 0
        self.step = 0
        self.lesson: Lesson | None = None
        self.ready = True
        self.pending = False  # a large model waits for the tab to be shown (set_model)
        self.category_facts = CategoryFacts()  # extra facts of the categories taught here
        bar, second = self._build_bars()
        split = self._build_cards_and_graph()
        self._build_layout(bar, second, split)
        self._connect_signals()
        self._refill_llms()
        self._render()

    # -- building the page (called once, in this order, by ``__init__``) --------------------
    def _build_bars(self) -> tuple[CaseBar, AnswerBar]:
        """Which case, and which answer; their widgets by the names the tests and the
        screenshot scripts use."""
        bar, second = CaseBar(self), AnswerBar(self.answerers, self)
        self.category, self.ordering = bar.category, bar.ordering
        self.previous_button, self.next_button = bar.previous_button, bar.next_button
        self.position_label = bar.position_label
        self.llm, self.flaw, self.reveal_button = second.llm, second.flaw, second.reveal_button
        self.zoom_out, self.zoom_in = second.zoom_out, second.zoom_in
        self.answer_bar = second
        self.flawed: FlawedAnswer | None = None
        return bar, second

    def _build_cards_and_graph(self) -> QSplitter:
        """The step cards (and the factor panel) on the left, the graph on the right."""
        self.question_card = Card("1 · The question")
        self.oracle_card = Card("2 · The oracle's answer, and why")
        self.reply_card = Card("3 · The LLM's reply")
        self.flaw_card = Card("2b · A flawed explainer's answer, and its values")
        self.flaw_card.hide()
        cards = QWidget()
        cards_layout = QVBoxLayout(cards)
        cards_layout.setContentsMargins(0, 0, 0, 0)
        for card in (self.question_card, self.oracle_card, self.flaw_card, self.reply_card):
            cards_layout.addWidget(card, 1)
        self.factor_panel = FactorPanel(self.tasks, parent=self)  # factors cases only
        self.factor_panel.hide()
        cards_layout.addWidget(self.factor_panel, 2)
        self.graph = GraphView(self.tasks, self)
        self.graph.set_controls_visible(False)
        # the cards scroll: large lecture text and a factors case's panel outgrow a laptop
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(cards)
        self.cards_scroll = scroll
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(scroll)
        split.addWidget(self.graph)
        self.factor_panel.highlight.connect(self.graph.mark_states)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([560, 480])
        self.graph.setMinimumWidth(320)
        for card in (self.question_card, self.oracle_card, self.flaw_card, self.reply_card):
            card.body.setMinimumWidth(240)
        return split

    def _build_layout(self, bar: CaseBar, second: AnswerBar, split: QSplitter) -> None:
        """Both bars above the cards and graph; the text starts large, for projecting."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(bar)
        layout.addWidget(second)
        layout.addWidget(split, 1)
        self.text_scale = 1.0
        self.scale_text(1.35)

    def _connect_signals(self) -> None:
        """The bars' choices; Space reveals, the arrows move; new results refill the LLMs."""
        self.category.currentIndexChanged.connect(lambda _: self._reorder())
        self.ordering.currentIndexChanged.connect(lambda _: self._reorder())
        self.previous_button.clicked.connect(lambda: self.move_by(-1))
        self.next_button.clicked.connect(lambda: self.move_by(1))
        self.flaw.currentIndexChanged.connect(lambda _: self._update_flaw())
        self.reveal_button.clicked.connect(self.reveal)
        self.zoom_out.clicked.connect(lambda: self.scale_text(1 / 1.15))
        self.zoom_in.clicked.connect(lambda: self.scale_text(1.15))
        for keys, handler in (
            (Qt.Key.Key_Space, self.reveal),
            (Qt.Key.Key_Right, lambda: self.move_by(1)),
            (Qt.Key.Key_Left, lambda: self.move_by(-1)),
        ):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(handler)
        self.results.reset.connect(self._refill_llms)
        self.results.rows_added.connect(lambda *_: self._refill_llms())

    # -- model -----------------------------------------------------------------------------
    def set_model(self, oracle: OracleResult | None, environment: Environment | None) -> None:
        """A new model. A large (columnar) one is taken up only once the tab is shown: its cases
        and its graph index cost seconds of Python over every state, which would compete with
        the main graph for the GIL while the window opens (issue 17)."""
        self.oracle, self.environment = oracle, environment
        self.pending = oracle is not None and oracle.columnar and not self.isVisible()
        if self.pending:
            self.ready = False
            return
        if oracle is not None:
            self.graph.set_oracle(oracle)
        self._reorder()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.pending:
            self.set_model(self.oracle, self.environment)

    def _reorder(self) -> None:
        if self.pending:  # taken up when the tab is shown
            return
        if self.oracle is None or self.environment is None:
            self.order = []
            self._render()
            return
        self.ready = False
        self.tasks.start(self._compute_order(self.oracle, self.category.currentData()), "teach")

    async def _compute_order(self, oracle: OracleResult, category_id: str) -> None:
        try:
            found = registered(category_id)
            if adds_facts(found):  # e.g. factors' exact interventions (isolated, cached)
                assert self.environment is not None  # a model is open when cases are offered
                self.question_card.set_text(f"Computing {facts_words(found)}…")
                base = oracle
                oracle = await self.category_facts.with_facts(found, self.environment, oracle)
                if base is not self.oracle:
                    return
                self.oracle = oracle
            order = await in_thread(stepping_order, oracle, category_id)
        except Exception as error:
            self.order = []
            self.question_card.set_text(f"This category cannot be taught here: {error}")
            self.ready = True
            return
        if oracle is not self.oracle or category_id != self.category.currentData():
            return
        if self.ordering.currentData() == "id":
            order.sort()
        self.order = order
        self.position = 0
        self._load_lesson()

    def show_state(self, state_id: int) -> None:
        """Jump to the first case with this state (e.g. clicked in the main graph), if any."""
        for i, (states, _delta) in enumerate(self.order):
            if state_id in states:
                self.position = i
                self._load_lesson()
                return

    def move_by(self, step: int) -> None:
        if not self.order:
            return
        self.position = (self.position + step) % len(self.order)
        self._load_lesson()

    def _load_lesson(self) -> None:
        if not self.order or self.oracle is None or self.environment is None:
            self.lesson = None
            self.ready = True
            self._render()
            return
        states, delta = self.order[self.position]
        try:
            self.lesson = lesson(
                self.oracle, self.environment, self.category.currentData(), states, delta
            )
        except Exception as error:
            self.lesson = None
            where = ", ".join(map(str, states))
            self.question_card.set_text(f"Cannot present state(s) {where}: {error}")
        self.step = 1
        self.flawed = None
        self.graph.show_path([])
        self.graph.highlight_states(list(states), centre=False, select=states[0])
        self.state_changed.emit(states[0])
        self.ready = True
        self._render()
        self._show_factors()

    def _show_factors(self) -> None:
        """The factor panel of a factors case once the oracle's answer is shown; the chosen
        LLM's citations once its reply is revealed."""
        lesson_ = self.lesson
        if (
            lesson_ is None
            or self.oracle is None
            or not has_factor_panel(lesson_.case.category)
            or self.step < 2
        ):
            self.factor_panel.show_case(None, None, None)
            return
        from explaincheck.core.analysis.factor_picture import lesson_row

        spec = self.llm.currentData() or ""
        stored = (
            stored_reply(self.results.rows, spec, lesson_.case, self.oracle)
            if self.step >= 3
            else None
        )
        row = lesson_row(lesson_.case.states, self.oracle, stored)
        self.factor_panel.show_case(row, self.oracle, self.environment, self.results.db_path)

    # -- steps -----------------------------------------------------------------------------
    def reveal(self) -> None:
        if self.lesson is None:
            return
        if self.step >= 3:
            self.move_by(1)
            return
        self.step += 1
        if self.step == 2:
            self.graph.show_path(self.lesson.path)
            self._update_flaw()
        if self.step == 3:
            self._reveal_reply()
        self._render()
        self._show_factors()

    def reveal_all(self) -> None:
        while self.lesson is not None and self.step < 3:
            self.reveal()

    def _render(self) -> None:
        total = len(self.order)
        self.position_label.setText(f"{self.position + 1} / {total}" if total else "—")
        if self.lesson is None:
            if self.oracle is None:
                self.question_card.set_text("Open a model to start.")
            self.oracle_card.set_text("")
            self.reply_card.set_text("")
            return
        lesson_ = self.lesson
        self.question_card.set_text(f"{lesson_.situation.strip()}\n\n{lesson_.question}")
        if self.step >= 2:
            self.oracle_card.set_text(f"Answer: {lesson_.answer}\n\n" + "\n".join(lesson_.why))
        else:
            self.oracle_card.set_text("(press Reveal)")
        if self.step < 2 and self.flaw.currentData():
            self.flaw_card.set_text("(press Reveal)")
        if self.step < 3:
            self.reply_card.set_text("(press Reveal)" if self.step == 2 else "")
        self.reveal_button.setText(NEXT_TEXT if self.step >= 3 else REVEAL_TEXT)

    # -- a flawed explainer beside the oracle ------------------------------------------------
    def _update_flaw(self) -> None:
        """Compute the chosen flawed explainer's answer for this case (worker thread: myopic
        asks Storm) once the oracle's answer is shown."""
        spec = self.flaw.currentData() or ""
        self.flaw_card.setVisible(bool(spec))
        self.flawed = None
        if not spec or self.lesson is None or self.oracle is None or self.step < 2:
            self.flaw_card.set_text("(press Reveal)" if spec else "")
            return
        self.flaw_card.set_text(f"Asking {spec}…")
        self.tasks.start(self._compute_flaw(spec, self.lesson, self.oracle), "flawed answer")

    async def _compute_flaw(self, spec: str, lesson_: Lesson, oracle: OracleResult) -> None:
        try:
            found = await in_thread(flawed_answer, oracle, spec, lesson_.case)
        except Exception as error:
            if lesson_ is self.lesson:
                self.flaw_card.set_text(f"{spec} could not answer: {error}")
            return
        if lesson_ is self.lesson and spec == self.flaw.currentData():
            self.flawed = found
            self.flaw_card.set_text(found.text)

    def _reveal_reply(self) -> None:
        assert self.lesson is not None
        spec = self.llm.currentData() or ""
        row = stored_reply(self.results.rows, spec, self.lesson.case, self.oracle)
        if row is not None:
            self.reply_card.set_text(reply_text(spec, row))
            return
        if self.answerers.can_ask_live(spec):
            self.reply_card.set_text(f"Asking {spec}…")
            self.live_requested.emit(spec, self.lesson.case)
        else:
            self.reply_card.set_text("No stored reply for this state.")

    def show_live_answer(self, case: Any, answer: Any) -> None:
        """A live reply (``core.campaign.session.LiveAnswer``), if still on the case asked."""
        if self.lesson is not None and case is self.lesson.case:
            row = {
                "reply": answer.reply,
                "thinking": answer.thinking,
                "verdict": answer.verdict,
                "reason": answer.reason,
            }
            self.reply_card.set_text(reply_text(answer.spec, row) + "  (asked live)")

    def show_live_error(self, case: Any, spec: str, message: str) -> None:
        if self.lesson is not None and case is self.lesson.case:
            self.reply_card.set_text(f"{spec} could not answer: {message}")

    def _refill_llms(self) -> None:
        current = self.llm.currentData()
        self.llm.blockSignals(True)
        self.llm.clear()
        stored = self.results.llms()
        for spec in stored:
            self.llm.addItem(f"{spec} (stored)", spec)
        for choice in self.answerers.offered:  # answerers that need no LLM, asked on the spot
            if choice.live and choice.instant and choice.spec not in stored:
                self.llm.addItem(f"{choice.spec} (ask live)", choice.spec)
        index = self.llm.findData(current)
        self.llm.setCurrentIndex(max(0, index))
        self.llm.blockSignals(False)

    def scale_text(self, factor: float) -> None:
        self.text_scale = max(0.6, min(3.0, self.text_scale * factor))
        for card in (self.question_card, self.oracle_card, self.flaw_card, self.reply_card):
            font = QFont(self.font())
            font.setPointSizeF(self.font().pointSizeF() * self.text_scale)
            card.body.setFont(font)
            title = QFont(font)
            title.setBold(True)
            card.title.setFont(title)

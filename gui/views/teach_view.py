"""The Teach tab, for projecting in a lecture: one case at a time, step by step.

A case is one state, or the two or more states of a pair or subset question (all highlighted on
the graph). Step 1 shows the situation and the question; step 2 the oracle's answer and why
(values for each state, the optimal action, a bottleneck run on the graph); step 3 reveals an
LLM's reply, from the stored results or asked live. Space reveals the next step, the arrow keys
move between cases.

The view computes nothing: ``core.workspace.presentation.teach.TeachWorkspace`` holds the
cases, the lesson, the flawed answer and the reply, and starts every computation; the view
shows its ``cards()`` and forwards the user's choices.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.teach import (
    Case,
    FactorCase,
    FlawedAnswer,
    Lesson,
    TeachWorkspace,
    llm_entries,
)
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.support.text_size import relative_font
from explaincheck.gui.views.factor_panel import FactorPanel
from explaincheck.gui.views.graph_view import GraphView
from explaincheck.gui.views.llm_choices import LlmChoices
from explaincheck.gui.views.teach_parts import AnswerBar, Card, CaseBar


class TeachView(QWidget):
    """Question → oracle answer and why → LLM reply."""

    case_shown = Signal(tuple)  # the states of the case now shown (the first is selected)

    def __init__(
        self,
        results: ResultsData,
        tasks: Tasks,
        parent: QWidget | None = None,
        *,
        answerers: LlmChoices,
        workspace: TeachWorkspace | None = None,
    ) -> None:
        super().__init__(parent)
        self.results = results
        self.tasks = tasks
        self.answerers = answerers  # the registered answerers (``gui/backend_choices``)
        self.workspace = workspace or TeachWorkspace(
            offload=in_thread,
            start=tasks.start,
            rows=lambda: results.rows,
            db_path=lambda: results.db_path,
            can_ask_live=answerers.can_ask_live,
        )
        self.pending = False  # a large model waits for the tab to be shown (set_model)
        self._waiting: tuple[OracleResult | None, Environment | None] = (None, None)
        bar, second = self._build_bars()
        split = self._build_cards_and_graph()
        self._build_layout(bar, second, split)
        self._connect_signals()
        self._refill_llms()
        self._render()

    # -- the workspace's state, by the names the tests and scripts use ----------------------
    @property
    def oracle(self) -> OracleResult | None:
        return self.workspace.oracle

    @property
    def environment(self) -> Environment | None:
        return self.workspace.environment

    @property
    def lesson(self) -> Lesson | None:
        return self.workspace.lesson

    @property
    def order(self) -> list[Case]:
        return self.workspace.order

    @property
    def step(self) -> int:
        return self.workspace.step

    @property
    def position(self) -> int:
        return self.workspace.position

    @property
    def flawed(self) -> FlawedAnswer | None:
        return self.workspace.flawed

    @property
    def ready(self) -> bool:
        return not self.pending and self.workspace.ready

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
        """The bars' choices go to the workspace, its events to the cards and the graph;
        Space reveals, the arrows move; new results refill the LLMs."""
        workspace = self.workspace
        workspace.category_id = self.category.currentData() or workspace.category_id
        workspace.ordering = self.ordering.currentData() or workspace.ordering
        self.category.currentIndexChanged.connect(lambda _: self._choose())
        self.ordering.currentIndexChanged.connect(lambda _: self._choose())
        self.previous_button.clicked.connect(lambda: self.move_by(-1))
        self.next_button.clicked.connect(lambda: self.move_by(1))
        self.flaw.currentIndexChanged.connect(
            lambda _: workspace.set_flaw(self.flaw.currentData() or "")
        )
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
        workspace.changed.connect(self._render)
        workspace.case_shown.connect(self._case_shown)
        workspace.path_shown.connect(self.graph.show_path)
        workspace.factors_changed.connect(self._show_factors)

    # -- model -----------------------------------------------------------------------------
    def set_model(self, oracle: OracleResult | None, environment: Environment | None) -> None:
        """A new model. A large (columnar) one is taken up only once the tab is shown: its cases
        and its graph index cost seconds of Python over every state, which would compete with
        the main graph for the GIL while the window opens (issue 17)."""
        self._waiting = (oracle, environment)
        self.pending = oracle is not None and oracle.columnar and not self.isVisible()
        if self.pending:
            return
        if oracle is not None:
            self.graph.set_oracle(oracle)
        self.workspace.set_model(oracle, environment)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.pending:
            self.set_model(*self._waiting)
        self._go_to_focus()

    def _choose(self) -> None:
        """The category or order chosen: its cases now, or once a waiting model is taken up."""
        self.workspace.category_id = self.category.currentData() or ""
        self.workspace.ordering = self.ordering.currentData() or "delta"
        if not self.pending:
            self.workspace.reorder()

    def _case_shown(self, states: tuple[int, ...]) -> None:
        self.graph.highlight_states(list(states), centre=False)
        self.case_shown.emit(tuple(states))

    def show_state(self, state_id: int) -> None:
        """Jump to the first case with this state (e.g. clicked in the main graph), if any."""
        self.workspace.show_state(state_id)

    def follow(self, state_id: int | None) -> None:
        """The window's selected state: the case holding it (if the chosen category has one)
        and the ring on the graph; a hidden tab goes there when it is shown."""
        self.workspace.focus = state_id
        if self.isVisible():
            self._go_to_focus()

    def case_states(self) -> tuple[int, ...]:
        return self.workspace.case_states()

    def _go_to_focus(self) -> None:
        state = self.workspace.focus
        if state is None or self.pending:
            return
        if self.workspace.ready and state not in self.case_states():
            self.workspace.show_state(state)
        self.graph.select_state(state, centre=False)

    def move_by(self, step: int) -> None:
        self.workspace.move_by(step)

    def _show_factors(self, case: FactorCase | None) -> None:
        """The factor panel of a factors case once the oracle's answer is shown; the chosen
        LLM's citations once its reply is revealed."""
        if case is None:
            self.factor_panel.show_case(None, None, None)
            return
        self.factor_panel.show_case(case.row, case.oracle, case.environment, case.db_path)

    # -- steps -----------------------------------------------------------------------------
    def reveal(self) -> None:
        self.workspace.llm = self.llm.currentData() or ""
        self.workspace.reveal()

    def reveal_all(self) -> None:
        self.workspace.llm = self.llm.currentData() or ""
        self.workspace.reveal_all()

    def _render(self) -> None:
        cards = self.workspace.cards()
        self.position_label.setText(cards.position)
        self.question_card.set_text(cards.question)
        self.oracle_card.set_text(cards.oracle)
        self.flaw_card.setVisible(cards.flaw_shown)
        self.flaw_card.set_text(cards.flaw)
        self.reply_card.set_text(cards.reply)
        self.reveal_button.setText(cards.reveal)

    def _refill_llms(self) -> None:
        current = self.llm.currentData()
        self.llm.blockSignals(True)
        self.llm.clear()
        live = [  # answerers that need no LLM, asked on the spot
            c.spec for c in self.answerers.offered if c.live and c.instant
        ]
        for text, spec in llm_entries(self.results.llms(), live):
            self.llm.addItem(text, spec)
        index = self.llm.findData(current)
        self.llm.setCurrentIndex(max(0, index))
        self.llm.blockSignals(False)

    def scale_text(self, factor: float) -> None:
        """A− / A+: the cards' text, relative to the presentation size (Ctrl+plus/minus)."""
        self.text_scale = max(0.6, min(3.0, self.text_scale * factor))
        for card in (self.question_card, self.oracle_card, self.flaw_card, self.reply_card):
            relative_font(card.body, self.text_scale)
            relative_font(card.title, self.text_scale, bold=True)

"""The MDP graph tab: states and transitions drawn with Qt's scene graph, with overlays.

Big models are shown as the neighbourhood of chosen states (``N states hidden``), and layouts
are computed on the graph's own worker thread (``graph_worker``), so the window stays
responsive whatever the model size. This widget loads, lays out and selects; its parts each
have one job: the canvas (``graph_canvas``), the controls (``graph_controls``), the drawn items
(``graph_drawing``), the overlays and colours (``graph_overlays``), the legend
(``graph_legend``) and the state search (``state_query``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QVBoxLayout, QWidget

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.oracle.valuation_search import ValuationQueryError
from explaincheck.core.policy.types import policy_chain
from explaincheck.core.taxonomy.property_units import units_of
from explaincheck.core.workspace.presentation.state_query import find_state
from explaincheck.core.workspace.presentation.valuation import valuation_text
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.support.text_size import notifier, text_scale
from explaincheck.gui.views.graph_canvas import GraphScene, ZoomableView
from explaincheck.gui.views.graph_controls import GraphRow, GraphToolbar
from explaincheck.gui.views.graph_drawing import GraphDrawing, summary_text
from explaincheck.gui.views.graph_items import GraphStyle
from explaincheck.gui.views.graph_layout import (
    PRESENTED_LIMIT,
    GraphIndex,
    layout,
    neighbourhood,
    presented_radius,
)
from explaincheck.gui.views.graph_legend import GraphLegend
from explaincheck.gui.views.graph_overlays import GraphOverlays
from explaincheck.gui.views.graph_worker import in_graph_thread


class GraphView(QWidget):
    """Graph tab: toolbar of overlays, the zoomable scene, the legend and the hidden count."""

    state_selected = Signal(int)
    rendered = Signal()

    def __init__(self, tasks: Tasks | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tasks = tasks or Tasks(self)
        self.style_ = GraphStyle()
        self.oracle: OracleResult | None = None
        self.index: GraphIndex | None = None
        self.centres: list[int] = []
        self.hidden_count = 0
        self.ready = False
        self._wanted: tuple[int, bool] | None = None  # a state to select once it is drawn
        self._generation = 0
        self._reverse: asyncio.Task | None = None  # indexing the predecessors of a big model
        self.scene = GraphScene(self)
        self.view = ZoomableView(self.scene, self)
        self.legend = GraphLegend(self.style_, self.view)
        self.view.legend = self.legend
        self.drawing = GraphDrawing(self.scene, self.view, self.style_)
        self.node_items, self.edge_items = self.drawing.node_items, self.drawing.edge_items
        self.toolbar = GraphToolbar(self.style_.show, self)
        self.overlays = GraphOverlays(
            self.style_, self.toolbar, self.drawing, self.view, self.legend, self.tasks
        )
        self.row = GraphRow(self, self.toolbar.colour_box)
        self.status, self.search = self.row.status, self.row.search
        self._build_ui()

    def _build_ui(self) -> None:
        """Lay the parts out, connect them, and say what to do while nothing is open."""
        layout_ = QVBoxLayout(self)
        layout_.setContentsMargins(0, 0, 0, 0)
        layout_.setSpacing(0)
        layout_.addWidget(self.toolbar)
        layout_.addLayout(self.row)
        layout_.addWidget(self.view, 1)
        self.scene.selectionChanged.connect(self._selection_changed)
        self.scene.state_double_clicked.connect(self._double_clicked)
        self.row.layout_box.currentIndexChanged.connect(lambda _: self._relayout())
        row = self.row
        row.depth_box.valueChanged.connect(lambda _: self._show_neighbourhood(self.centres))
        row.expand_button.clicked.connect(lambda: self.expand())
        labels = row.labels_box
        labels.currentIndexChanged.connect(lambda _: self.overlays.set_labels(labels.currentData()))
        row.search.returnPressed.connect(
            lambda: self.tasks.start(self.search_for(row.search.text()), "graph search")
        )
        row.fit_button.clicked.connect(self.view.fit)
        row.show_neighbourhood_controls(False)
        for keys, handler in (
            (QKeySequence("Ctrl+0"), self.view.fit),
            (QKeySequence.StandardKey.Find, self.search.setFocus),
        ):
            action = QAction(self)
            action.setShortcut(keys)
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(handler)
            self.addAction(action)
        # + and − zoom the graph once it has the focus (Ctrl+plus and Ctrl+minus are the
        # window's presentation size: the same keys in two places would make Qt fire neither)
        for key, factor in (("+", 1.25), ("=", 1.25), ("-", 0.8)):
            action = QAction(self.view)
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            action.triggered.connect(lambda _=False, f=factor: self.view.zoom(f))
            self.view.addAction(action)
        hint = self.scene.addText(
            "Open a built-in environment from the Model panel,\n"
            "open a PRISM file (Ctrl+O), or drop a .prism file here."
        )
        hint.setDefaultTextColor(self.palette().placeholderText().color())
        notifier().changed.connect(self._text_size_changed)
        font = hint.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        hint.setFont(font)
        self.legend.hide()

    def _text_size_changed(self, _scale: float) -> None:
        """Another presentation size: the labels, the legend and its corner, drawn again (a
        graph small enough to grow its discs with the size is laid out again)."""
        if self.ready and self.index is not None and len(self.drawing.shown) <= PRESENTED_LIMIT:
            self._relayout()
        self.drawing.repaint_nodes()
        self.view.place_legend()
        self.legend.update()
        if self.view.auto_fit:
            self.view.fit()

    def set_controls_visible(self, on: bool) -> None:
        """Hide the toolbar, the colour choice and the status line (the teaching view shows a
        bare graph)."""
        self.toolbar.setVisible(on)
        self.legend.follows_text_size = on  # a bare graph beside cards or pages keeps its key small
        self.status.setVisible(on)
        self.row.colour_label.setVisible(on)
        self.toolbar.colour_box.setVisible(on)

    # -- loading ---------------------------------------------------------------------------
    def clear(self) -> None:
        self._generation += 1
        self.drawing.clear()
        self.oracle = None
        self.index = None
        self.ready = False
        self._wanted = None
        self.status.setText("")

    def set_oracle(self, oracle: OracleResult, variables: dict[str, str] | None = None) -> None:
        """Show a new model; the graph index and layout are computed off the GUI thread.
        ``variables``: the environment's variable order and names, for labels and tooltips."""
        self.clear()
        self.oracle = oracle
        self.style_.variables = dict(variables or {})
        self.style_.units = units_of(oracle)
        self.drawing.highlighted = set()
        self.legend.highlight = ""
        self.status.setText(f"Laying out {len(oracle.states)} states…")
        colours = self.toolbar.colour_box
        colours.model().item(1).setEnabled(oracle.has_danger)  # type: ignore[attr-defined]
        colours.setItemText(0, "V (goal)" if self.style_.units.legacy else "V (property)")
        self.overlays.flaw_colouring.set_oracle(oracle)
        if not oracle.has_danger and self.style_.colour_by == "danger":
            colours.setCurrentIndex(0)
        self.overlays.set_policy(policy_chain(oracle))  # a loaded policy travels with it
        self.tasks.start(self._load(oracle, self._generation), "graph layout")

    async def _load(self, oracle: OracleResult, generation: int) -> None:
        """Index (lazily: small models whole, big ones only where shown) and draw; for a big
        model the first neighbourhood follows transitions forwards from the initial state, and
        the predecessors are indexed afterwards on the graph's worker thread."""
        index = await in_graph_thread(GraphIndex.from_oracle, oracle)
        if generation != self._generation:
            return
        self.index = index
        self.legend.show()
        self.legend.present = set(index.marks)
        self.legend.has_danger = oracle.has_danger
        whole = index.draws_whole()
        self.row.show_neighbourhood_controls(not whole)
        if whole:
            await self._show(set(range(index.size)), fit=True)
        else:
            self.centres = [index.initial]
            first = self._show(self._around(index, self.centres), fit=True)
            self._reverse = self.tasks.start(self._index_predecessors(index), "graph index")
            await first

    async def _index_predecessors(self, index: GraphIndex) -> None:
        await in_graph_thread(index.build_reverse)
        if index is self.index and self.ready:  # now '+' also marks unshown predecessors
            self.drawing.mark_expandable(index.frontier(self.drawing.shown))

    async def _full_index(self) -> GraphIndex | None:
        """The index with predecessors (waiting for the worker thread if need be)."""
        index = self.index
        if index is not None and not index.has_reverse:
            task = self._reverse
            if task is not None and not task.done():
                await asyncio.shield(task)
            else:
                await in_graph_thread(index.build_reverse)
        return index if index is self.index else None

    def _around(self, index: GraphIndex, centres: Iterable[int], most: int = 30) -> set[int]:
        """The states within the depth box's steps of ``centres`` (at most ``most`` steps)."""
        return neighbourhood(index, centres, min(self.row.depth_box.value(), most))

    def _relayout(self) -> None:
        if self.oracle is not None and self.index is not None:
            self.tasks.start(self._show(set(self.drawing.shown), fit=True), "graph layout")

    def _show_neighbourhood(self, centres: Iterable[int], fit: bool = True) -> None:
        if self.index is None or self.index.draws_whole():
            return
        self.centres = list(centres) or [self.index.initial]

        async def show_around() -> None:
            index = await self._full_index()
            if index is not None:
                await self._show(self._around(index, self.centres), fit=fit)

        self.tasks.start(show_around(), "graph layout")

    def expand(self, around: int | None = None) -> None:
        """One more step around every shown state (or around ``around`` only)."""
        if self.index is None:
            return
        shown = self.drawing.shown
        base = {around} if around is not None else set(shown)

        async def expand() -> None:
            index = await self._full_index()
            if index is not None:
                more = neighbourhood(index, base, 1, cap=len(self.drawing.shown) + 10_000)
                await self._show(self.drawing.shown | more, fit=False)

        self.tasks.start(expand(), "graph layout")

    def _double_clicked(self, state_id: int) -> None:
        item = self.node_items.get(state_id)
        if item is not None and item.expandable:
            self.expand(state_id)

    async def _show(self, shown: set[int], fit: bool) -> None:
        oracle, index = self.oracle, self.index
        if oracle is None or index is None:
            return
        self._generation += 1
        generation = self._generation
        self.ready = False
        mode = self.row.layout_box.currentData() or "auto"
        positions, radius = await in_graph_thread(layout, oracle, index, shown, mode)
        if generation != self._generation:
            return
        radius = presented_radius(positions, radius, text_scale())
        current = lambda: generation == self._generation  # noqa: E731
        if not await self.drawing.populate(oracle, index, positions, radius, current):
            return
        self.hidden_count = index.size - len(self.drawing.shown)
        frontier = index.frontier(self.drawing.shown) if self.hidden_count else set()
        for state_id in frontier:
            self.node_items[state_id].expandable = True
        self.row.hidden_label.setText(
            f"{self.hidden_count} of {index.size} states hidden" if self.hidden_count else ""
        )
        self.status.setText(summary_text(oracle, index))
        self.view.place_legend()
        self.legend.update()
        if fit:
            self.view.fit()
        self.ready = True
        wanted, self._wanted = self._wanted, None
        if wanted is not None:  # selected while the layout was being computed
            self.select_state(*wanted)
        self.rendered.emit()

    # -- selection and highlights ----------------------------------------------------------
    def selected_state(self) -> int | None:
        return self.drawing.selected_state()

    def _selection_changed(self) -> None:
        state = self.selected_state()
        if state is not None:
            self.state_selected.emit(state)

    def select_state(self, state_id: int, centre: bool = True) -> None:
        """Select a state (bringing it into the neighbourhood if hidden)."""
        if self.oracle is None or not 0 <= state_id < len(self.oracle.states):
            return
        if not self.ready and state_id not in self.node_items:  # drawn soon: select it then
            self._wanted = (state_id, centre)
            return
        if state_id not in self.node_items:
            self.tasks.start(
                self._bring_into_view([state_id], select=state_id, centre=centre), "graph layout"
            )
            return
        self.drawing.select(state_id, centre)

    def highlight_states(
        self, state_ids: Iterable[int], centre: bool = True, select: int | None = None
    ) -> None:
        """Mark the states of a test case (and show them if they are hidden); ``select`` also
        moves the selection ring to that state."""
        ids = [s for s in state_ids if self.oracle is not None and 0 <= s < len(self.oracle.states)]
        self._set_highlighted(ids, "test case states")
        missing = [s for s in ids if s not in self.node_items]
        if select is not None and select in self.node_items and not missing:
            self.drawing.select(select, centre=False)
        if missing and not self.ready:  # a layout is on its way: the lights wait for it
            if select is not None:
                self._wanted = (select, False)
            return
        if missing:
            self.tasks.start(self._bring_into_view(ids, select=select), "graph layout")
        elif ids and centre:
            self.drawing.centre_on(ids[0])

    def mark_states(self, state_ids: Iterable[int]) -> None:
        """Highlight states where they are shown, without moving the view or showing hidden
        ones (the factor panel's "A* changes here": possibly many states)."""
        self._set_highlighted(state_ids, "A* changes under the factor")

    def _set_highlighted(self, state_ids: Iterable[int], meaning: str) -> None:
        """Light ``state_ids`` and say in the legend what the light means (no row when none)."""
        self.drawing.light(state_ids)
        self.legend.highlight = meaning if self.drawing.highlighted else ""
        self.view.place_legend()
        self.legend.update()

    async def _bring_into_view(
        self, ids: list[int], select: int | None = None, centre: bool = False
    ) -> None:
        """Recentre the neighbourhood on ``ids``; ``centre`` puts ``select`` mid-view."""
        index = await self._full_index()
        if index is None:
            return
        self.centres = ids
        await self._show(self._around(index, ids, most=2), fit=True)
        if select is not None and select in self.node_items:
            self.drawing.select(select, centre)

    def show_path(self, path: list[int]) -> None:
        """Emphasise a path of states (the teaching view's bottleneck path); [] clears it."""
        self.drawing.show_path(path)

    # -- search ----------------------------------------------------------------------------
    async def search_for(self, query: str) -> int | None:
        """Find a state (on a worker thread: it reads the whole model), select it and centre
        it, recentring the neighbourhood of a big model on it; the status line says what
        happened."""
        oracle = self.oracle
        if oracle is None or not query.strip():
            return None
        try:
            state = await in_thread(find_state, oracle, query, self.style_.variables)
        except ValuationQueryError as error:
            self.status.setText(f"Search: {error}")
            return None
        if oracle is not self.oracle:
            return None
        if state is None:
            self.status.setText(f"No state matches “{query.strip()}”")
            return None
        words = valuation_text(oracle.states[state].valuation, self.style_.variables)
        self.status.setText(f"State {state}: {words}")
        self.select_state(state)
        return state

"""The MDP graph tab: states and transitions drawn with Qt's scene graph, with overlays.

Big models are shown as the neighbourhood of chosen states (``N states hidden``), and layouts
are computed on a worker thread, so the window stays responsive whatever the model size.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QPainter, QWheelEvent
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSpinBox,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.oracle.valuation_search import (
    ValuationQueryError,
    looks_like_valuation,
    matching_states,
    parse_query,
)
from explaincheck.core.policy.types import policy_chain
from explaincheck.gui.tasks import Tasks, in_thread
from explaincheck.gui.valuation import valuation_text
from explaincheck.gui.views.flaw_colouring import FlawColouring, colour_choices
from explaincheck.gui.views.graph_items import EdgeItem, EdgeOverview, GraphStyle, NodeItem
from explaincheck.gui.views.graph_layout import GraphIndex, layout, neighbourhood
from explaincheck.gui.views.graph_legend import GraphLegend
from explaincheck.gui.views.policy_overlay import REGRET, PolicyOverlay

TOGGLES = (
    ("initial", "Initial"),
    ("goal", "Goal"),
    ("unsafe", "Unsafe"),
    ("dead_end", "Dead ends"),
    ("bottleneck", "Bottlenecks"),
    ("optimal", "Optimal actions"),
)
DEFAULT_DEPTH = 3
CHUNK = 400  # items created per event-loop turn
T = TypeVar("T")
THIN_BELOW = 0.5  # view scale under which edges are drawn one pixel wide, without arrows


# The graph's own worker: its index and layouts must not queue behind the other panels' work on
# the shared pool (on a 10^5-state model the teaching and campaign panels read the whole model
# there at the same moment, and the first neighbourhood waited seconds for them).
_GRAPH_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="explaincheck-graph")


async def in_graph_thread(function: Callable[..., T], *args) -> T:
    """Run ``function`` on the graph's worker thread and await its result."""
    return await asyncio.get_running_loop().run_in_executor(
        _GRAPH_THREAD, functools.partial(function, *args)
    )


class GraphScene(QGraphicsScene):
    """The scene; double-clicking a state reports it (to expand a neighbourhood there)."""

    state_double_clicked = Signal(int)

    def mouseDoubleClickEvent(self, event) -> None:
        for item in self.items(event.scenePos()):
            if isinstance(item, NodeItem):
                self.state_double_clicked.emit(item.state_id)
                return
        super().mouseDoubleClickEvent(event)


class ZoomableView(QGraphicsView):
    """A QGraphicsView with wheel zoom around the cursor and drag to pan."""

    def __init__(self, scene: QGraphicsScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontSavePainterState, True)
        self.legend: QWidget | None = None
        self.auto_fit = True
        # called with the new scale after every zoom or fit (the edges' pens depend on it)
        self.on_scale: Callable[[float], None] | None = None
        # the drawn items' bounds, kept by the owner (itemsBoundingRect asks every item: slow)
        self.content_rect: QRectF | None = None
        # drag to pan, wheel to zoom: scroll bars would only take room
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def wheelEvent(self, event: QWheelEvent) -> None:
        factor = 1.0015 ** event.angleDelta().y()
        self.zoom(factor)

    def mousePressEvent(self, event) -> None:
        self.auto_fit = False  # the user took over: stop re-fitting on resize
        super().mousePressEvent(event)

    def zoom(self, factor: float) -> None:
        self.auto_fit = False
        current = self.transform().m11()
        factor = max(0.02 / current, min(factor, 8.0 / current))
        self.scale(factor, factor)
        self._scaled()

    def _scaled(self) -> None:
        if self.on_scale is not None:
            self.on_scale(self.transform().m11())

    def fit(self) -> None:
        """Show the whole graph, leaving the legend's corner free; keep doing so on resize
        until the user zooms or pans."""
        self.auto_fit = True
        rect = self.content_rect or self.scene().itemsBoundingRect()
        if rect.isEmpty() or self.viewport().width() < 50:
            return
        rect = rect.adjusted(-30, -30, 30, 30)
        if self.legend is not None and self.legend.isVisible():
            rect = legend_free_rect(rect, self.viewport().size(), self.legend.size())
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() > 2.0:  # a tiny graph should not be blown up
            self.resetTransform()
            self.scale(2.0, 2.0)
            self.centerOn(rect.center())
        self._scaled()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.place_legend()
        if self.auto_fit:
            self.fit()

    def showEvent(self, event) -> None:
        """Fitted again when its tab is shown: a fit made while hidden had no legend to leave
        room for (Teach's graph is drawn before the tab is opened)."""
        super().showEvent(event)
        if self.auto_fit:
            self.fit()

    def place_legend(self) -> None:
        if self.legend is not None:
            size = self.legend.sizeHint()
            grown = size != self.legend.size()
            self.legend.resize(size)
            self.legend.move(self.viewport().width() - size.width() - 12, 12)
            if grown and self.auto_fit:  # a new row (test case states) needs its corner too
                self.fit()


def legend_free_rect(rect: QRectF, viewport: QSize, legend: QSize) -> QRectF:
    """``rect`` grown so that, fitted into ``viewport``, the graph leaves the legend's corner
    free: beside the legend on a wide view, below it on a tall one (Teach's narrow graph),
    whichever draws the graph larger. The margin is exact for the scale it gives."""
    width, height = max(1, viewport.width()), max(1, viewport.height())
    room_w, room_h = legend.width() + 24, legend.height() + 24
    beside = min(max(1, width - room_w) / rect.width(), height / rect.height())
    below = min(width / rect.width(), max(1, height - room_h) / rect.height())
    if beside >= below:
        return rect.adjusted(0, 0, room_w / beside, 0)
    return rect.adjusted(0, -room_h / below, 0, 0)


class ElidedLabel(QLabel):
    """A one-line label that shows as much of its text as fits, ending in "…"."""

    def __init__(self, parent=None):
        super().__init__("", parent)
        self._full = ""

    def setText(self, text: str) -> None:
        self._full = text
        self.setToolTip(text if text else "")
        self._elide()

    def text(self) -> str:
        return self._full

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, self.width())
        QLabel.setText(self, shown)


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
        self.node_items: dict[int, NodeItem] = {}
        self.edge_items: dict[tuple[int, int], EdgeItem] = {}
        self.edge_overview: EdgeOverview | None = None
        self.shown: set[int] = set()
        self.centres: list[int] = []
        self.highlighted: set[int] = set()
        self.hidden_count = 0
        self.ready = False
        self._generation = 0
        self._reverse: asyncio.Task | None = None  # indexing the predecessors of a big model
        self._build_ui()

    # -- widgets ---------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self._build_scene()
        bar = self._build_toolbar()
        hood = self._build_neighbourhood_row(self._build_find_widgets())
        self._build_layout(bar, hood)
        self._set_neighbourhood_controls(False)
        self._show_hint()
        self._build_shortcuts()

    def _build_scene(self) -> None:
        self.scene = GraphScene(self)
        self.scene.selectionChanged.connect(self._selection_changed)
        self.scene.state_double_clicked.connect(self._double_clicked)
        self.view = ZoomableView(self.scene, self)
        self.view.on_scale = self._scale_changed
        self.legend = GraphLegend(self.style_, self.view)
        self.view.legend = self.legend

    def _build_toolbar(self) -> QToolBar:
        """Overlay toggles, the colour choice and the layout choice."""
        bar = QToolBar(self)
        bar.setIconSize(bar.iconSize() * 0)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toggles: dict[str, QToolButton] = {}
        for key, text in TOGGLES:
            button = QToolButton(self)
            button.setText(text)
            button.setCheckable(True)
            button.setChecked(self.style_.show[key])
            button.setToolTip(f"Show {text.lower()}")
            button.toggled.connect(lambda on, k=key: self.set_overlay(k, on))
            self.toggles[key] = button
            bar.addWidget(button)
        bar.addSeparator()
        bar.addWidget(QLabel(" Colour: "))
        self.colour_box = QComboBox(self)
        # as wide as about 14 characters, not as its longest entry (a flaw's |V̂ − V|): the bar
        # must keep the box on screen at 1366 px
        self.colour_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.colour_box.setMinimumContentsLength(14)
        self.colour_box.addItem("V (goal)", "value")
        self.colour_box.addItem("D (danger)", "danger")
        self.colour_box.addItem("none", "none")
        for text, data in colour_choices():  # a flawed explainer's V̂, or |V̂ − V|
            self.colour_box.addItem(text, data)
        self.flaw_colouring = FlawColouring(self.style_, self.tasks, self._recolour)
        self.policy_overlay = PolicyOverlay(self.style_, self._policy_changed)
        self.colour_box.currentIndexChanged.connect(
            lambda _: self.set_colour_by(self.colour_box.currentData())
        )
        bar.addWidget(self.colour_box)
        bar.addWidget(QLabel(" Layout: "))
        self.layout_box = QComboBox(self)
        for name in ("auto", "grid", "force", "layers"):
            self.layout_box.addItem(name, name)
        self.layout_box.currentIndexChanged.connect(lambda _: self._relayout())
        bar.addWidget(self.layout_box)
        self.toolbar = bar
        return bar

    def _build_find_widgets(self) -> list[QWidget]:
        """The label choice, the state search field and the Fit button."""
        widgets: list[QWidget] = []
        widgets.append(QLabel(" Labels: "))
        self.labels_box = QComboBox(self)
        self.labels_box.addItem("id", "id")
        self.labels_box.addItem("valuation", "valuation")
        self.labels_box.currentIndexChanged.connect(
            lambda _: self._set_labels(self.labels_box.currentData())
        )
        widgets.append(self.labels_box)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Find state: x=3, y=5 · an id · a label")
        self.search.setToolTip(
            "Jump to a state: conditions on its variables (x=3, y=5 or x=3 & y=5; also <, >, "
            "<=, >=, !=), a state id, or a label"
        )
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(150)
        self.search.setMaximumWidth(240)
        self.search.returnPressed.connect(self._search)
        widgets.append(self.search)
        fit = QToolButton(self)
        fit.setText("Fit")
        fit.setToolTip("Fit the graph in the window (Ctrl+0)")
        fit.clicked.connect(self.view.fit)
        widgets.append(fit)
        return widgets

    def _build_neighbourhood_row(self, extra: list[QWidget]) -> QHBoxLayout:
        """The status line, the neighbourhood controls and ``extra`` widgets at the end."""
        hood = QHBoxLayout()
        hood.setContentsMargins(4, 0, 4, 2)
        hood.setSpacing(8)
        self.status = ElidedLabel(self)
        # long messages are elided with "…" (full text in the tooltip): they must neither widen
        # the window nor run into the depth control
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        hood.addWidget(self.status, 1)
        self.depth_label = QLabel("Neighbourhood depth:")
        hood.addWidget(self.depth_label)
        self.depth = QSpinBox(self)
        self.depth.setRange(1, 30)
        self.depth.setValue(DEFAULT_DEPTH)
        self.depth.valueChanged.connect(lambda _: self._show_neighbourhood(self.centres))
        hood.addWidget(self.depth)
        self.expand_button = QToolButton(self)
        self.expand_button.setText("Expand")
        self.expand_button.setToolTip(
            "Show one more step around the shown states (double-click a '+' state to expand it)"
        )
        self.expand_button.clicked.connect(self.expand)
        hood.addWidget(self.expand_button)
        self.hidden_label = QLabel("", self)
        hood.addWidget(self.hidden_label)
        for widget in extra:
            hood.addWidget(widget)
        return hood

    def _build_layout(self, bar: QToolBar, hood: QHBoxLayout) -> None:
        layout_ = QVBoxLayout(self)
        layout_.setContentsMargins(0, 0, 0, 0)
        layout_.setSpacing(0)
        layout_.addWidget(bar)
        layout_.addLayout(hood)
        layout_.addWidget(self.view, 1)

    def _build_shortcuts(self) -> None:
        for keys, handler in (
            (QKeySequence.StandardKey.ZoomIn, lambda: self.view.zoom(1.25)),
            (QKeySequence.StandardKey.ZoomOut, lambda: self.view.zoom(0.8)),
            (QKeySequence("Ctrl+0"), self.view.fit),
            (QKeySequence.StandardKey.Find, self.search.setFocus),
        ):
            action = QAction(self)
            action.setShortcut(keys)
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(handler)
            self.addAction(action)

    def set_controls_visible(self, on: bool) -> None:
        """Hide the toolbar and status line (the teaching view shows a bare graph)."""
        self.toolbar.setVisible(on)
        self.status.setVisible(on)

    def _set_neighbourhood_controls(self, on: bool) -> None:
        for widget in (self.depth_label, self.depth, self.expand_button, self.hidden_label):
            widget.setVisible(on)

    # -- loading ---------------------------------------------------------------------------
    def _show_hint(self) -> None:
        """What to do when nothing is open (an empty canvas explains nothing)."""
        hint = self.scene.addText(
            "Open a built-in environment from the Model panel,\n"
            "open a PRISM file (Ctrl+O), or drop a .prism file here."
        )
        hint.setDefaultTextColor(self.palette().placeholderText().color())
        font = hint.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        hint.setFont(font)
        self.legend.hide()

    def clear(self) -> None:
        self._generation += 1
        self.scene.clear()
        self.view.content_rect = None
        self.node_items.clear()
        self.edge_items.clear()
        self.edge_overview = None
        self.shown = set()
        self.oracle = None
        self.index = None
        self.ready = False
        self.status.setText("")

    def set_oracle(self, oracle: OracleResult, variables: dict[str, str] | None = None) -> None:
        """Show a new model; the graph index and layout are computed off the GUI thread.
        ``variables``: the environment's variable order and names, for labels and tooltips."""
        self.clear()
        self.oracle = oracle
        self.style_.variables = dict(variables or {})
        self.highlighted = set()
        self.legend.highlight = ""
        self.status.setText(f"Laying out {len(oracle.states)} states…")
        self.colour_box.model().item(1).setEnabled(oracle.has_danger)
        self.flaw_colouring.set_oracle(oracle)
        if not oracle.has_danger and self.style_.colour_by == "danger":
            self.colour_box.setCurrentIndex(0)
        self.set_policy(policy_chain(oracle))  # a loaded policy travels with its oracle
        self.tasks.start(self._load(oracle, self._generation), "graph layout")

    async def _load(self, oracle: OracleResult, generation: int) -> None:
        """Index (lazily: small models whole, big ones only where shown) and draw; for a big
        model the first neighbourhood follows transitions forwards from the initial state, and
        the predecessors are indexed afterwards on a worker thread."""
        index = await in_graph_thread(GraphIndex.from_oracle, oracle)
        if generation != self._generation:
            return
        self.index = index
        self.legend.show()
        self.legend.present = set(index.marks)
        self.legend.has_danger = oracle.has_danger
        if index.draws_whole():
            self._set_neighbourhood_controls(False)
            await self._show(set(range(index.size)), fit=True)
        else:
            self._set_neighbourhood_controls(True)
            self.centres = [index.initial]
            first = self._show(neighbourhood(index, self.centres, self.depth.value()), fit=True)
            self._reverse = self.tasks.start(self._index_predecessors(index), "graph index")
            await first

    async def _index_predecessors(self, index: GraphIndex) -> None:
        await in_graph_thread(index.build_reverse)
        if index is self.index and self.ready:  # now '+' also marks unshown predecessors
            for state_id in index.frontier(self.shown):
                item = self.node_items.get(state_id)
                if item is not None and not item.expandable:
                    item.expandable = True
                    item.update()

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

    def _relayout(self) -> None:
        if self.oracle is not None and self.index is not None:
            self.tasks.start(self._show(set(self.shown), fit=True), "graph layout")

    def _show_neighbourhood(self, centres: Iterable[int], fit: bool = True) -> None:
        if self.index is None or self.index.draws_whole():
            return
        self.centres = list(centres) or [self.index.initial]
        self.tasks.start(self._show_around(self.centres, fit), "graph layout")

    async def _show_around(self, centres: list[int], fit: bool) -> None:
        index = await self._full_index()
        if index is not None:
            await self._show(neighbourhood(index, centres, self.depth.value()), fit=fit)

    def expand(self, around: int | None = None) -> None:
        """One more step around every shown state (or around ``around`` only)."""
        if self.index is None:
            return
        base = {around} if around is not None else set(self.shown)
        self.tasks.start(self._expand(base), "graph layout")

    async def _expand(self, base: set[int]) -> None:
        index = await self._full_index()
        if index is not None:
            more = neighbourhood(index, base, 1, cap=len(self.shown) + 10_000)
            await self._show(self.shown | more, fit=False)

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
        mode = self.layout_box.currentData() or "auto"
        positions, radius = await in_graph_thread(layout, oracle, index, shown, mode)
        if generation != self._generation:
            return
        if not await self._populate(positions, radius, generation):
            return
        self.hidden_count = index.size - len(self.shown)
        frontier = index.frontier(self.shown) if self.hidden_count else set()
        for state_id in frontier:
            self.node_items[state_id].expandable = True
        self.hidden_label.setText(
            f"{self.hidden_count} of {index.size} states hidden" if self.hidden_count else ""
        )
        self.status.setText(self._summary())
        self.view.place_legend()
        self.legend.update()
        if fit:
            self.view.fit()
        self.ready = True
        self.rendered.emit()

    async def _populate(
        self, positions: dict[int, tuple[float, float]], radius: float, generation: int
    ) -> bool:
        """Create the items in chunks, yielding to the event loop between them (thousands of
        items would otherwise freeze the window); False if a newer layout took over."""
        assert self.oracle is not None and self.index is not None
        oracle, index = self.oracle, self.index
        selected = self.selected_state()
        self.scene.blockSignals(True)
        self.scene.clear()
        self.scene.blockSignals(False)
        self.view.content_rect = None
        self.node_items = {}
        self.edge_items = {}
        self.edge_overview = None
        self.shown = set(positions)
        for count, (state_id, (x, y)) in enumerate(positions.items(), start=1):
            item = NodeItem(oracle.states[state_id], radius, self.style_)
            item.setPos(x, y)
            item.highlighted = state_id in self.highlighted
            self.scene.addItem(item)
            self.node_items[state_id] = item
            if count % CHUNK == 0:
                await asyncio.sleep(0)
                if generation != self._generation:
                    return False
        edges = index.edges_among(self.shown)
        for count, ((s, t), actions) in enumerate(edges.items(), start=1):
            edge = EdgeItem(
                self.node_items[s], self.node_items[t], actions, (t, s) in edges, self.style_
            )
            self.scene.addItem(edge)
            self.edge_items[(s, t)] = edge
            if count % CHUNK == 0:
                await asyncio.sleep(0)
                if generation != self._generation:
                    return False
        self.edge_overview = EdgeOverview(self.edge_items.values())
        self.scene.addItem(self.edge_overview)
        self._restyle_edges()
        rect = self.scene.itemsBoundingRect()
        self.view.content_rect = rect
        self.scene.setSceneRect(rect.adjusted(-400, -400, 400, 400))
        if selected is not None and selected in self.node_items:
            self.node_items[selected].setSelected(True)
        return True

    def _summary(self) -> str:
        assert self.oracle is not None and self.index is not None
        counts = self.index.role_counts  # counted on the worker thread, not here
        parts = [f"{len(self.oracle.states)} states"]
        parts.append(_count(counts.get("bottleneck", 0), "bottleneck"))
        parts.append(_count(counts.get("dead_end", 0), "dead end"))
        if self.oracle.centrality_method.startswith("approx"):
            parts.append(f"centrality {self.oracle.centrality_method}")
        return " · ".join(parts) + " · click a state; hover an edge for probabilities"

    # -- overlays --------------------------------------------------------------------------
    def set_overlay(self, key: str, on: bool) -> None:
        self.style_.show[key] = on
        if self.toggles[key].isChecked() != on:
            self.toggles[key].setChecked(on)
        if key == "optimal":
            self._restyle_edges()
        self.view.place_legend()
        self.legend.update()
        self._repaint_nodes()

    def _recolour(self) -> None:
        self.view.place_legend()
        self.legend.update()
        self._repaint_nodes()

    def _repaint_nodes(self) -> None:
        """Redraw every node: each caches its picture, which ``scene.update()`` would reuse."""
        for item in self.node_items.values():
            item.update()

    def _restyle_edges(self) -> None:
        """Pens from the overlays and the zoom; zoomed far out, one overview path stands in for
        the ordinary edges (the emphasised ones stay drawn on top of it)."""
        thin = self.style_.thin and self.edge_overview is not None
        for edge in self.edge_items.values():
            edge.restyle()
            edge.setVisible(not thin or edge.emphasised())
        if self.edge_overview is not None:
            self.edge_overview.setVisible(thin)

    def _scale_changed(self, scale: float) -> None:
        """Zoomed far out, edges become one path of hairlines (see ``EdgeOverview``)."""
        thin = scale < THIN_BELOW
        if thin != self.style_.thin:
            self.style_.thin = thin
            self._restyle_edges()

    def set_policy(self, chain) -> None:
        """Draw a policy's choices (None: none); its regret becomes a colour choice, chosen."""
        at = self.colour_box.findData(REGRET)
        if chain is not None and at < 0:
            self.colour_box.addItem("regret (policy π)", REGRET)
        elif chain is None and at >= 0:
            if self.colour_box.currentIndex() == at:
                self.set_colour_by("value")
            self.colour_box.removeItem(at)
        self.policy_overlay.set_chain(chain)
        if chain is not None:
            self.set_colour_by(REGRET)

    def _policy_changed(self) -> None:
        self._restyle_edges()
        self._recolour()

    def set_colour_by(self, kind: str) -> None:
        if not self.policy_overlay.handles(kind):
            self.policy_overlay.clear()
        if self.policy_overlay.handles(kind):
            self.flaw_colouring.clear()
            self.policy_overlay.apply(kind)
        elif self.flaw_colouring.handles(kind):
            self.flaw_colouring.apply(kind)
        else:
            self.flaw_colouring.clear()
            self.style_.colour_by = kind
        index = self.colour_box.findData(kind)
        if index >= 0 and self.colour_box.currentIndex() != index:
            self.colour_box.setCurrentIndex(index)
        self.view.place_legend()
        self.legend.update()
        self._repaint_nodes()

    def _set_labels(self, kind: str) -> None:
        self.style_.labels = kind
        self._repaint_nodes()

    # -- selection and highlights ----------------------------------------------------------
    def selected_state(self) -> int | None:
        for item in self.scene.selectedItems():
            if isinstance(item, NodeItem):
                return item.state_id
        return None

    def _selection_changed(self) -> None:
        state = self.selected_state()
        if state is not None:
            self.state_selected.emit(state)

    def select_state(self, state_id: int, centre: bool = True) -> None:
        """Select a state (bringing it into the neighbourhood if hidden)."""
        if self.oracle is None or not 0 <= state_id < len(self.oracle.states):
            return
        if state_id not in self.node_items:
            self.tasks.start(
                self._bring_into_view([state_id], select=state_id, centre=centre), "graph layout"
            )
            return
        self.scene.clearSelection()
        self.node_items[state_id].setSelected(True)
        if centre:
            self.view.auto_fit = False
            self.view.centerOn(self.node_items[state_id].pos())

    def highlight_states(
        self, state_ids: Iterable[int], centre: bool = True, select: int | None = None
    ) -> None:
        """Mark the states of a test case (and show them if they are hidden); ``select`` also
        moves the selection ring to that state."""
        ids = [s for s in state_ids if self.oracle is not None and 0 <= s < len(self.oracle.states)]
        self._set_highlighted(ids, "test case states")
        missing = [s for s in ids if s not in self.node_items]
        if select is not None and select in self.node_items and not missing:
            self.scene.clearSelection()
            self.node_items[select].setSelected(True)
        if missing:
            self.tasks.start(self._bring_into_view(ids, select=select), "graph layout")
        elif ids and centre:
            self.view.auto_fit = False
            self.view.centerOn(self.node_items[ids[0]].pos())

    def mark_states(self, state_ids: Iterable[int]) -> None:
        """Highlight states where they are shown, without moving the view or showing hidden
        ones (the factor panel's "A* changes here": possibly many states)."""
        self._set_highlighted(state_ids, "A* changes under the factor")

    def _set_highlighted(self, state_ids: Iterable[int], meaning: str) -> None:
        """Light ``state_ids`` and say in the legend what the light means (no row when none)."""
        self.highlighted = set(state_ids)
        for state_id, item in self.node_items.items():
            item.highlighted = state_id in self.highlighted
            item.update()
        self.legend.highlight = meaning if self.highlighted else ""
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
        shown = neighbourhood(index, ids, min(self.depth.value(), 2))
        await self._show(shown, fit=True)
        if select is not None and select in self.node_items:
            self.scene.clearSelection()
            self.node_items[select].setSelected(True)
            if centre:
                self.view.auto_fit = False
                self.view.centerOn(self.node_items[select].pos())

    def show_path(self, path: list[int]) -> None:
        """Emphasise a path of states (the teaching view's bottleneck path); [] clears it."""
        on_path = set(path)
        steps = set(itertools.pairwise(path))
        for state_id, item in self.node_items.items():
            item.on_path = state_id in on_path
            item.update()
        for key, edge in self.edge_items.items():
            edge.on_path = key in steps
        self._restyle_edges()

    # -- search ----------------------------------------------------------------------------
    def find_state(self, query: str) -> int | None:
        """A state id from a query: conditions on variables (``x=3, y=5``, ``x=3 & y=5``), an
        id or a label; None when no state matches. Raises ValuationQueryError (one line) when
        conditions cannot be read. Reads the whole model: call it off the GUI thread when big."""
        if self.oracle is None:
            return None
        oracle = self.oracle
        query = query.strip()
        if query.isdigit():
            number = int(query)
            return number if number < len(oracle.states) else None
        if looks_like_valuation(query):
            variables = list(oracle.model.variables) or (
                list(oracle.states[0].valuation) if oracle.states else []
            )
            conditions = parse_query(query, variables, self.style_.variables)
            found = matching_states(oracle.states, conditions, limit=1)
            return found[0] if found else None
        for state in oracle.states:
            if query in state.labels:
                return state.id
        return None

    def _search(self) -> None:
        self.tasks.start(self.search_for(self.search.text()), "graph search")

    async def search_for(self, query: str) -> int | None:
        """Find a state (on a worker thread), select it and centre it, recentring the
        neighbourhood of a big model on it; the status line says what happened."""
        oracle = self.oracle
        if oracle is None or not query.strip():
            return None
        try:
            state = await in_thread(self.find_state, query)
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


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")

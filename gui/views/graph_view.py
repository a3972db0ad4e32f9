"""The MDP graph tab: states and transitions drawn with Qt's scene graph, with overlays.

Big models are shown as the neighbourhood of chosen states (``N states hidden``), and layouts
are computed on a worker thread, so the window stays responsive whatever the model size.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
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
from explaincheck.gui.tasks import Tasks, in_thread
from explaincheck.gui.views.flaw_colouring import FlawColouring, colour_choices
from explaincheck.gui.views.graph_items import EdgeItem, GraphStyle, NodeItem
from explaincheck.gui.views.graph_layout import GraphIndex, layout, neighbourhood
from explaincheck.gui.views.graph_legend import GraphLegend

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

    def fit(self) -> None:
        """Show the whole graph, leaving the legend's corner free; keep doing so on resize
        until the user zooms or pans."""
        self.auto_fit = True
        rect = self.scene().itemsBoundingRect()
        if rect.isEmpty() or self.viewport().width() < 50:
            return
        rect = rect.adjusted(-30, -30, 30, 30)
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.legend is not None and self.legend.isVisible():
            scale = self.transform().m11() or 1.0
            rect = rect.adjusted(0, 0, (self.legend.width() + 24) / scale, 0)
            self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() > 2.0:  # a tiny graph should not be blown up
            self.resetTransform()
            self.scale(2.0, 2.0)
            self.centerOn(rect.center())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.place_legend()
        if self.auto_fit:
            self.fit()

    def place_legend(self) -> None:
        if self.legend is not None:
            size = self.legend.sizeHint()
            self.legend.resize(size)
            self.legend.move(self.viewport().width() - size.width() - 12, 12)


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
        self.shown: set[int] = set()
        self.centres: list[int] = []
        self.highlighted: set[int] = set()
        self.hidden_count = 0
        self.ready = False
        self._generation = 0
        self._build_ui()

    # -- widgets ---------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.scene = GraphScene(self)
        self.scene.selectionChanged.connect(self._selection_changed)
        self.scene.state_double_clicked.connect(self._double_clicked)
        self.view = ZoomableView(self.scene, self)
        self.legend = GraphLegend(self.style_, self.view)
        self.view.legend = self.legend

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
        self.colour_box.addItem("V (goal)", "value")
        self.colour_box.addItem("D (danger)", "danger")
        self.colour_box.addItem("none", "none")
        for text, data in colour_choices():  # a flawed explainer's V̂, or |V̂ − V|
            self.colour_box.addItem(text, data)
        self.flaw_colouring = FlawColouring(self.style_, self.tasks, self._recolour)
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
        hood_widgets: list[QWidget] = []
        hood_widgets.append(QLabel(" Labels: "))
        self.labels_box = QComboBox(self)
        self.labels_box.addItem("id", "id")
        self.labels_box.addItem("valuation", "valuation")
        self.labels_box.currentIndexChanged.connect(
            lambda _: self._set_labels(self.labels_box.currentData())
        )
        hood_widgets.append(self.labels_box)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Find state: id, x=1 y=2 or a label")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(150)
        self.search.setMaximumWidth(240)
        self.search.returnPressed.connect(self._search)
        hood_widgets.append(self.search)
        fit = QToolButton(self)
        fit.setText("Fit")
        fit.setToolTip("Fit the graph in the window (Ctrl+0)")
        fit.clicked.connect(self.view.fit)
        hood_widgets.append(fit)

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
        for widget in hood_widgets:
            hood.addWidget(widget)

        layout_ = QVBoxLayout(self)
        layout_.setContentsMargins(0, 0, 0, 0)
        layout_.setSpacing(0)
        self.toolbar = bar
        layout_.addWidget(bar)
        layout_.addLayout(hood)
        layout_.addWidget(self.view, 1)
        self._set_neighbourhood_controls(False)
        self._show_hint()

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
        self.node_items.clear()
        self.edge_items.clear()
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
        self.status.setText(f"Laying out {len(oracle.states)} states…")
        self.colour_box.model().item(1).setEnabled(oracle.has_danger)
        self.flaw_colouring.set_oracle(oracle)
        if not oracle.has_danger and self.style_.colour_by == "danger":
            self.colour_box.setCurrentIndex(0)
        self.tasks.start(self._load(oracle, self._generation), "graph layout")

    async def _load(self, oracle: OracleResult, generation: int) -> None:
        index = await in_thread(GraphIndex.from_oracle, oracle)
        if generation != self._generation:
            return
        self.index = index
        self.legend.show()
        self.legend.present = {m for s in oracle.states for m in NodeItem._marks_of(s)}
        self.legend.has_danger = oracle.has_danger
        if index.draws_whole():
            self._set_neighbourhood_controls(False)
            await self._show(set(range(index.size)), fit=True)
        else:
            self._set_neighbourhood_controls(True)
            self.centres = [index.initial]
            await self._show(neighbourhood(index, self.centres, self.depth.value()), fit=True)

    def _relayout(self) -> None:
        if self.oracle is not None and self.index is not None:
            self.tasks.start(self._show(set(self.shown), fit=True), "graph layout")

    def _show_neighbourhood(self, centres: Iterable[int], fit: bool = True) -> None:
        if self.index is None or self.index.draws_whole():
            return
        self.centres = list(centres) or [self.index.initial]
        shown = neighbourhood(self.index, self.centres, self.depth.value())
        self.tasks.start(self._show(shown, fit=fit), "graph layout")

    def expand(self, around: int | None = None) -> None:
        """One more step around every shown state (or around ``around`` only)."""
        if self.index is None:
            return
        base = {around} if around is not None else set(self.shown)
        more = neighbourhood(self.index, base, 1, cap=len(self.shown) + 10_000)
        self.tasks.start(self._show(self.shown | more, fit=False), "graph layout")

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
        positions, radius = await in_thread(layout, oracle, index, shown, mode)
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
        self.node_items = {}
        self.edge_items = {}
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
        rect = self.scene.itemsBoundingRect()
        self.scene.setSceneRect(rect.adjusted(-400, -400, 400, 400))
        if selected is not None and selected in self.node_items:
            self.node_items[selected].setSelected(True)
        return True

    def _summary(self) -> str:
        assert self.oracle is not None
        o = self.oracle
        parts = [f"{len(o.states)} states"]
        parts.append(_count(len(o.bottlenecks), "bottleneck"))
        parts.append(_count(len(o.dead_ends), "dead end"))
        return " · ".join(parts) + " · click a state; hover an edge for probabilities"

    # -- overlays --------------------------------------------------------------------------
    def set_overlay(self, key: str, on: bool) -> None:
        self.style_.show[key] = on
        if self.toggles[key].isChecked() != on:
            self.toggles[key].setChecked(on)
        self.view.place_legend()
        self.legend.update()
        self.scene.update()

    def _recolour(self) -> None:
        self.view.place_legend()
        self.legend.update()
        self.scene.update()

    def set_colour_by(self, kind: str) -> None:
        if self.flaw_colouring.handles(kind):
            self.flaw_colouring.apply(kind)
        else:
            self.flaw_colouring.clear()
            self.style_.colour_by = kind
        index = self.colour_box.findData(kind)
        if index >= 0 and self.colour_box.currentIndex() != index:
            self.colour_box.setCurrentIndex(index)
        self.view.place_legend()
        self.legend.update()
        self.scene.update()

    def _set_labels(self, kind: str) -> None:
        self.style_.labels = kind
        self.scene.update()

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
            self.tasks.start(self._bring_into_view([state_id], select=state_id), "graph layout")
            return
        self.scene.clearSelection()
        self.node_items[state_id].setSelected(True)
        if centre:
            self.view.auto_fit = False
            self.view.centerOn(self.node_items[state_id])

    def highlight_states(
        self, state_ids: Iterable[int], centre: bool = True, select: int | None = None
    ) -> None:
        """Mark the states of a test case (and show them if they are hidden); ``select`` also
        moves the selection ring to that state."""
        ids = [s for s in state_ids if self.oracle is not None and 0 <= s < len(self.oracle.states)]
        self.highlighted = set(ids)
        for state_id, item in self.node_items.items():
            item.highlighted = state_id in self.highlighted
            item.update()
        missing = [s for s in ids if s not in self.node_items]
        if select is not None and select in self.node_items and not missing:
            self.scene.clearSelection()
            self.node_items[select].setSelected(True)
        if missing:
            self.tasks.start(self._bring_into_view(ids, select=select), "graph layout")
        elif ids and centre:
            self.view.auto_fit = False
            self.view.centerOn(self.node_items[ids[0]])

    def mark_states(self, state_ids: Iterable[int]) -> None:
        """Highlight states where they are shown, without moving the view or showing hidden
        ones (the factor panel's "A* changes here": possibly many states)."""
        self.highlighted = set(state_ids)
        for state_id, item in self.node_items.items():
            item.highlighted = state_id in self.highlighted
            item.update()

    async def _bring_into_view(self, ids: list[int], select: int | None = None) -> None:
        if self.index is None:
            return
        self.centres = ids
        shown = neighbourhood(self.index, ids, min(self.depth.value(), 2))
        await self._show(shown, fit=True)
        if select is not None and select in self.node_items:
            self.scene.clearSelection()
            self.node_items[select].setSelected(True)

    def show_path(self, path: list[int]) -> None:
        """Emphasise a path of states (the teaching view's bottleneck path); [] clears it."""
        on_path = set(path)
        steps = set(itertools.pairwise(path))
        for state_id, item in self.node_items.items():
            item.on_path = state_id in on_path
        for key, edge in self.edge_items.items():
            edge.on_path = key in steps
        self.scene.update()

    # -- search ----------------------------------------------------------------------------
    def find_state(self, query: str) -> int | None:
        """A state id from a query: an id, variable assignments (x=1 y=2) or a label."""
        if self.oracle is None:
            return None
        query = query.strip()
        if query.isdigit():
            number = int(query)
            return number if number < len(self.oracle.states) else None
        pairs = re.findall(r"([A-Za-z_][\w.]*)\s*=\s*([^\s,;]+)", query)
        if pairs:
            for state in self.oracle.states:
                if all(_matches(state.valuation.get(k), v) for k, v in pairs):
                    return state.id
            return None
        for state in self.oracle.states:
            if query in state.labels:
                return state.id
        return None

    def _search(self) -> None:
        state = self.find_state(self.search.text())
        if state is None:
            self.status.setText(f"No state matches “{self.search.text()}”")
            return
        self.select_state(state)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _matches(value, text: str) -> bool:
    if value is None:
        return False
    if isinstance(value, bool):
        return text.lower() in (("true", "1", "t") if value else ("false", "0", "f"))
    try:
        return float(value) == float(text)
    except ValueError:
        return str(value) == text

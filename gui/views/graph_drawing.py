"""The graph's drawn items: one node item per shown state, one edge item per shown pair and
the overview path that stands in for the edges when zoomed far out.

The dictionaries are kept (cleared and refilled, never replaced), so whoever holds them sees
the current drawing. Items are created in chunks, yielding to the event loop between them:
thousands of items at once would freeze the window.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable

from explaincheck.core.oracle.types import OracleResult
from explaincheck.gui.views.graph_canvas import GraphScene, ZoomableView
from explaincheck.gui.views.graph_items import EdgeItem, EdgeOverview, GraphStyle, NodeItem
from explaincheck.gui.views.graph_layout import GraphIndex

CHUNK = 400  # items created per event-loop turn
THIN_BELOW = 0.5  # view scale under which edges are drawn one pixel wide, without arrows


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def summary_text(oracle: OracleResult, index: GraphIndex) -> str:
    """The status line once drawn: the model's size and its bottlenecks and dead ends."""
    counts = index.role_counts  # counted on the worker thread, not here
    parts = [f"{len(oracle.states)} states"]
    parts.append(_count(counts.get("bottleneck", 0), "bottleneck"))
    parts.append(_count(counts.get("dead_end", 0), "dead end"))
    if oracle.centrality_described.startswith("approx"):
        parts.append(f"centrality {oracle.centrality_described}")
    return " · ".join(parts) + " · click a state; hover an edge for probabilities"


class GraphDrawing:
    """The items in ``scene`` and what is lit among them (test case states, a path)."""

    def __init__(self, scene: GraphScene, view: ZoomableView, style: GraphStyle) -> None:
        self.scene, self.view, self.style = scene, view, style
        self.node_items: dict[int, NodeItem] = {}
        self.edge_items: dict[tuple[int, int], EdgeItem] = {}
        self.edge_overview: EdgeOverview | None = None
        self.shown: set[int] = set()
        self.highlighted: set[int] = set()
        view.on_scale = self.scale_changed

    def clear(self) -> None:
        self.scene.clear()
        self.view.content_rect = None
        self.node_items.clear()
        self.edge_items.clear()
        self.edge_overview = None
        self.shown = set()

    async def populate(
        self,
        oracle: OracleResult,
        index: GraphIndex,
        positions: dict[int, tuple[float, float]],
        radius: float,
        current: Callable[[], bool],
    ) -> bool:
        """Draw the states at ``positions`` and the edges among them; False as soon as
        ``current()`` says a newer layout took over."""
        selected = self.selected_state()
        self.scene.blockSignals(True)
        self.clear()
        self.scene.blockSignals(False)
        self.shown = set(positions)
        for count, (state_id, (x, y)) in enumerate(positions.items(), start=1):
            item = NodeItem(oracle.states[state_id], radius, self.style)
            item.setPos(x, y)
            item.highlighted = state_id in self.highlighted
            self.scene.addItem(item)
            self.node_items[state_id] = item
            if count % CHUNK == 0:
                await asyncio.sleep(0)
                if not current():
                    return False
        edges = index.edges_among(self.shown)
        for count, ((s, t), actions) in enumerate(edges.items(), start=1):
            edge = EdgeItem(
                self.node_items[s], self.node_items[t], actions, (t, s) in edges, self.style
            )
            self.scene.addItem(edge)
            self.edge_items[(s, t)] = edge
            if count % CHUNK == 0:
                await asyncio.sleep(0)
                if not current():
                    return False
        self.edge_overview = EdgeOverview(self.edge_items.values())
        self.scene.addItem(self.edge_overview)
        self.restyle_edges()
        rect = self.scene.itemsBoundingRect()
        self.view.content_rect = rect
        self.scene.setSceneRect(rect.adjusted(-400, -400, 400, 400))
        if selected is not None and selected in self.node_items:
            self.node_items[selected].setSelected(True)
        return True

    def mark_expandable(self, states: Iterable[int]) -> None:
        """'+' on shown states with hidden neighbours."""
        for state_id in states:
            item = self.node_items.get(state_id)
            if item is not None and not item.expandable:
                item.expandable = True
                item.update()

    # -- pens and pictures -------------------------------------------------------------------
    def repaint_nodes(self) -> None:
        """Redraw every node: each caches its picture, which ``scene.update()`` would reuse."""
        for item in self.node_items.values():
            item.update()

    def restyle_edges(self) -> None:
        """Pens from the overlays and the zoom; zoomed far out, one overview path stands in for
        the ordinary edges (the emphasised ones stay drawn on top of it)."""
        thin = self.style.thin and self.edge_overview is not None
        for edge in self.edge_items.values():
            edge.restyle()
            edge.setVisible(not thin or edge.emphasised())
        if self.edge_overview is not None:
            self.edge_overview.setVisible(thin)

    def scale_changed(self, scale: float) -> None:
        """Zoomed far out, edges become one path of hairlines (see ``EdgeOverview``)."""
        thin = scale < THIN_BELOW
        if thin != self.style.thin:
            self.style.thin = thin
            self.restyle_edges()

    # -- selection and what is lit -------------------------------------------------------------
    def selected_state(self) -> int | None:
        for item in self.scene.selectedItems():
            if isinstance(item, NodeItem):
                return item.state_id
        return None

    def select(self, state_id: int, centre: bool) -> None:
        """Move the selection ring to a shown state (``centre``: and put it mid-view)."""
        self.scene.clearSelection()
        self.node_items[state_id].setSelected(True)
        if centre:
            self.centre_on(state_id)

    def centre_on(self, state_id: int) -> None:
        self.view.auto_fit = False
        self.view.centerOn(self.node_items[state_id].pos())

    def light(self, state_ids: Iterable[int]) -> None:
        self.highlighted = set(state_ids)
        for state_id, item in self.node_items.items():
            item.highlighted = state_id in self.highlighted
            item.update()

    def show_path(self, path: list[int]) -> None:
        """Emphasise a path of states (the teaching view's bottleneck path); [] clears it."""
        on_path = set(path)
        steps = set(itertools.pairwise(path))
        for state_id, item in self.node_items.items():
            item.on_path = state_id in on_path
            item.update()
        for key, edge in self.edge_items.items():
            edge.on_path = key in steps
        self.restyle_edges()

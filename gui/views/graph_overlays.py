"""What the graph's states and edges show: the overlay toggles, the colour choice (V, D, a
flawed explainer's V̂ or |V̂ − V|, a policy's regret) and the state labels. Each change
redraws the nodes and the legend; edges only when their pens depend on it."""

from __future__ import annotations

from typing import Any

from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.flaw_colouring import FlawColouring
from explaincheck.gui.views.graph_canvas import ZoomableView
from explaincheck.gui.views.graph_controls import GraphToolbar
from explaincheck.gui.views.graph_drawing import GraphDrawing
from explaincheck.gui.views.graph_items import GraphStyle
from explaincheck.gui.views.graph_legend import GraphLegend
from explaincheck.gui.views.policy_overlay import REGRET, PolicyOverlay


class GraphOverlays:
    """Joins the toolbar's choices to the style, the legend and the drawn items."""

    def __init__(
        self,
        style: GraphStyle,
        toolbar: GraphToolbar,
        drawing: GraphDrawing,
        view: ZoomableView,
        legend: GraphLegend,
        tasks: Tasks,
    ) -> None:
        self.style, self.toolbar, self.drawing = style, toolbar, drawing
        self.view, self.legend = view, legend
        self.flaw_colouring = FlawColouring(style, tasks, self.refresh)
        self.policy_overlay = PolicyOverlay(style, self._policy_changed)
        for key, button in toolbar.toggles.items():
            button.toggled.connect(lambda on, k=key: self.set_overlay(k, on))
        colours = toolbar.colour_box
        colours.currentIndexChanged.connect(lambda _: self.set_colour_by(colours.currentData()))

    def refresh(self) -> None:
        """The legend (placed again: its rows may have changed) and every node."""
        self.view.place_legend()
        self.legend.update()
        self.drawing.repaint_nodes()

    def set_overlay(self, key: str, on: bool) -> None:
        self.style.show[key] = on
        if self.toolbar.toggles[key].isChecked() != on:
            self.toolbar.toggles[key].setChecked(on)
        if key == "optimal":
            self.drawing.restyle_edges()
        self.refresh()

    def set_policy(self, chain: Any) -> None:
        """Draw a policy's choices (None: none); its regret becomes a colour choice, chosen."""
        colours = self.toolbar.colour_box
        at = colours.findData(REGRET)
        if chain is not None and at < 0:
            colours.addItem("regret (policy π)", REGRET)
        elif chain is None and at >= 0:
            if colours.currentIndex() == at:
                self.set_colour_by("value")
            colours.removeItem(at)
        self.policy_overlay.set_chain(chain)
        if chain is not None:
            self.set_colour_by(REGRET)

    def _policy_changed(self) -> None:
        self.drawing.restyle_edges()
        self.refresh()

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
            self.style.colour_by = kind
        colours = self.toolbar.colour_box
        index = colours.findData(kind)
        if index >= 0 and colours.currentIndex() != index:
            colours.setCurrentIndex(index)
        self.refresh()

    def set_labels(self, kind: str) -> None:
        self.style.labels = kind
        self.drawing.repaint_nodes()

"""The graph's canvas: the scene (double-click reports a state) and the zoomable, pannable view
that keeps the legend's corner free when it fits the graph."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QMouseEvent, QPainter, QResizeEvent, QShowEvent, QWheelEvent
from PySide6.QtWidgets import QGraphicsScene, QGraphicsSceneMouseEvent, QGraphicsView, QWidget

from explaincheck.gui.views.graph_items import NodeItem


class GraphScene(QGraphicsScene):
    """The scene; double-clicking a state reports it (to expand a neighbourhood there)."""

    state_double_clicked = Signal(int)

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
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

    def mousePressEvent(self, event: QMouseEvent) -> None:
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
            # the room left for the legend may reach past the scene's rect, where the view
            # cannot scroll: it then slid the graph back under the legend (issue 50, point 10)
            scene = self.scene()
            if not scene.sceneRect().contains(rect):
                scene.setSceneRect(scene.sceneRect().united(rect))
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() > 2.0:  # a tiny graph should not be blown up
            self.resetTransform()
            self.scale(2.0, 2.0)
            self.centerOn(rect.center())
        self._scaled()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.place_legend()
        if self.auto_fit:
            self.fit()

    def showEvent(self, event: QShowEvent) -> None:
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
            # in the corner, but never past the left edge of a narrow graph (the Workbench's at
            # 1280 px): the margin gives way first
            margin = max(0, min(12, self.viewport().width() - size.width()))
            self.legend.move(max(0, self.viewport().width() - size.width() - margin), margin)
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

"""The legend drawn over the graph: the colour scale in use and the marks that are switched on."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QLinearGradient,
    QPainter,
    QPen,
    QPixmap,
    QPolygonF,
)
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

from explaincheck.gui.support.text_size import normal_font, text_scale
from explaincheck.gui.views import colours
from explaincheck.gui.views.graph_items import GraphStyle, highlight_glow

_MARK_TEXT = {
    "initial": "initial state",
    "goal": "goal",
    "unsafe": "unsafe",
    "dead_end": "dead end (V = 0)",
    "bottleneck": "bottleneck",
    "optimal": "optimal action",
}
HIGHLIGHT_MARK = "highlight"
INFINITE_MARK = "infinite"


class GraphLegend(QWidget):
    """A small translucent panel; repaints whenever the style changes."""

    def __init__(self, style: GraphStyle, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.graph_style = style
        self.present: set[str] = set()  # marks that occur in the model at all
        self.has_danger = True
        # what the highlighted states are ("test case states", "A* changes under the factor");
        # "" while no state is highlighted, and then the legend has no such row
        self.highlight = ""
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        # False in the Teach graph: beside the cards it is narrow, and a key grown to a
        # projector's size left the graph a strip (issue 50, point 6); the Workbench's follows
        # the size within its room (the graph's pane: at most its width, under half its height)
        self.follows_text_size = True
        self._cache: tuple[tuple, QPixmap] | None = None  # (what it shows, its picture)

    def _rows(self) -> list[str]:
        rows = [
            m
            for m in _MARK_TEXT
            if self.graph_style.show.get(m) and (m in self.present or m == "optimal")
        ]
        if self._infinite_row():
            rows.insert(0, INFINITE_MARK)
        return [*rows, HIGHLIGHT_MARK] if self.highlight else rows

    def _infinite_row(self) -> str:
        """The row of V = ∞ states, when V colours the graph under a reward property."""
        units = self.graph_style.units
        if self.graph_style.colour_by != "value" or self.graph_style.scale_title or not units:
            return ""
        return units.infinite_text

    def _text(self, mark: str) -> str:
        if mark == HIGHLIGHT_MARK:
            return self.highlight
        if mark == INFINITE_MARK:
            return self._infinite_row()
        if mark == "dead_end" and self.graph_style.units is not None:
            return self.graph_style.units.dead_end_text
        return _MARK_TEXT[mark]

    def scale_texts(self) -> tuple[str, str, str]:
        """The colour scale's title and the texts at its two ends: "V(s): P(reach goal)", "0",
        "1"; under a reward property its unit and direction and its finite range."""
        style = self.graph_style
        if style.scale_title:  # another source colours the states (a flaw, a policy)
            return style.scale_title, *(style.scale_ends or ("0", "1"))
        if style.colour_by == "danger":
            return "D(s): P(unsafe)", "0", "1"
        units = style.units
        if units is None:
            return "V(s): P(reach goal)", "0", "1"
        return units.legend_title, units.low_text, units.high_text

    def _unit(self) -> float:
        """Its text follows the presentation size (and so do its rows), or stays normal; never
        grown past its ``room`` (the whole width, under half the height of a narrow pane)."""
        if not self.follows_text_size:
            return 1.0
        scale = text_scale()
        parent = self.parentWidget()  # the graph's view: the legend lies over its viewport
        if not isinstance(parent, QAbstractScrollArea) or scale <= 1.0:
            return scale
        room, base = parent.viewport().size(), self._size_at(1.0)
        fits = min(
            room.width() / max(1, base.width()),
            0.45 * room.height() / max(1, base.height()),
        )
        return max(1.0, min(scale, fits))

    def _font(self) -> QFont:
        return self._font_at(self._unit())

    def _font_at(self, unit: float) -> QFont:
        font = normal_font()
        if unit != 1.0:
            font.setPointSizeF(font.pointSizeF() * unit)
        return font

    def sizeHint(self) -> QSize:
        return self._size_at(self._unit())

    def _size_at(self, u: float) -> QSize:
        scale = 46 * u if self.graph_style.colour_by != "none" else 0
        height = 14 * u + 20 * u * len(self._rows()) + scale
        metrics = QFontMetrics(self._font_at(u))
        words = max((metrics.horizontalAdvance(self._text(m)) for m in self._rows()), default=0)
        title = metrics.horizontalAdvance(self.scale_texts()[0])
        return QSize(round(max(190 * u, 46 * u + words, 20 * u + title)), round(height))

    def paintEvent(self, event: Any) -> None:
        """Blit the legend's picture, drawn again only when what it shows changes: it lies over
        the graph, so every frame of a pan repaints it (drawing it cost ~10 ms per frame)."""
        key = (
            self.size().toTuple(),
            self._unit(),
            self.devicePixelRatioF(),
            self.graph_style.colour_by,
            self.graph_style.scale_title,
            self.scale_texts(),
            tuple(sorted(self.graph_style.show.items())),
            tuple(sorted(self.present)),
            self.has_danger,
            self.highlight,
        )
        if self._cache is None or self._cache[0] != key:
            ratio = self.devicePixelRatioF()
            pixmap = QPixmap(self.size() * ratio)
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            self._paint_content(painter)
            painter.end()
            self._cache = (key, pixmap)
        QPainter(self).drawPixmap(0, 0, self._cache[1])

    def _paint_content(self, painter: QPainter) -> None:
        u = self._unit()
        painter.setFont(self._font())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor(0, 0, 0, 60)))
        painter.setBrush(QColor(255, 255, 255, 225))
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)
        painter.setPen(QColor("#222222"))
        y = 8.0 * u
        if self.graph_style.colour_by != "none":
            title, low, high = self.scale_texts()
            painter.drawText(
                QRectF(10 * u, y, self.width() - 20 * u, 16 * u), Qt.AlignmentFlag.AlignLeft, title
            )
            y += 18 * u
            gradient = QLinearGradient(10 * u, 0, 180 * u, 0)
            stops = colours.scale_stops(self.graph_style.colour_by)
            for i, stop in enumerate(stops):
                gradient.setColorAt(i / (len(stops) - 1), QColor(stop))
            painter.setBrush(gradient)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRect(QRectF(10 * u, y, 170 * u, 10 * u))
            painter.setPen(QColor("#222222"))
            below = QRectF(10 * u, y + 10 * u, 60 * u, 14 * u)
            painter.drawText(below, Qt.AlignmentFlag.AlignLeft, low)
            painter.drawText(below.translated(110 * u, 0), Qt.AlignmentFlag.AlignRight, high)
            y += 28 * u
        for mark in self._rows():
            self._draw_symbol(painter, mark, QPointF(20 * u, y + 8 * u), 6.0 * u)
            painter.setPen(QColor("#222222"))
            text_box = QRectF(36 * u, y, self.width() - 40 * u, 16 * u)
            painter.drawText(text_box, Qt.AlignmentFlag.AlignVCenter, self._text(mark))
            y += 20 * u

    @staticmethod
    def _draw_symbol(painter: QPainter, mark: str, c: QPointF, r: float = 6.0) -> None:
        painter.setBrush(QColor("#d9d9d9"))
        if mark == INFINITE_MARK:  # a state's disc in the colour of V = ∞
            painter.setPen(QPen(QColor("#555555"), 1))
            painter.setBrush(colours.INFINITE)
            painter.drawEllipse(c, r, r)
            return
        if mark == HIGHLIGHT_MARK:  # the glow NodeItem.paint draws around a highlighted state
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(highlight_glow())
            painter.drawEllipse(c, r * 1.7, r * 1.7)
            painter.setBrush(QColor("#d9d9d9"))
            painter.setPen(QPen(QColor("#555555"), 1))
            painter.drawEllipse(c, r, r)
            return
        if mark == "optimal":
            painter.setPen(QPen(colours.OPTIMAL, 3))
            painter.drawLine(QPointF(c.x() - 1.5 * r, c.y()), QPointF(c.x() + 1.2 * r, c.y()))
            return
        pen = {
            "initial": QPen(colours.INITIAL, 3),
            "goal": QPen(colours.GOAL, 2.5),
            "unsafe": QPen(colours.UNSAFE, 2.5, Qt.PenStyle.DashLine),
            "dead_end": QPen(QColor("#555555"), 1),
            "bottleneck": QPen(QColor("#555555"), 1),
        }[mark]
        if mark == "bottleneck":
            painter.setPen(QPen(colours.BOTTLENECK, 2.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            s = r * 1.5
            painter.drawPolygon(
                QPolygonF(
                    [
                        QPointF(c.x(), c.y() - s),
                        QPointF(c.x() + s, c.y()),
                        QPointF(c.x(), c.y() + s),
                        QPointF(c.x() - s, c.y()),
                    ]
                )
            )
            painter.setBrush(QColor("#d9d9d9"))
            painter.setPen(QPen(QColor("#555555"), 1))
        painter.setPen(pen)
        painter.drawEllipse(c, r, r)
        if mark == "dead_end":
            badge = QPointF(c.x() + r * 0.72, c.y() + r * 0.72)
            painter.setPen(QPen(QColor("#ffffff"), 1))
            painter.setBrush(colours.DEAD_END)
            painter.drawEllipse(badge, r * 0.5, r * 0.5)
            painter.setPen(QPen(QColor("#ffffff"), 1.4))
            d = r * 0.25
            painter.drawLine(badge + QPointF(-d, -d), badge + QPointF(d, d))
            painter.drawLine(badge + QPointF(-d, d), badge + QPointF(d, -d))

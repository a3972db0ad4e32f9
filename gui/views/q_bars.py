"""A bar chart of Q(s, a) with the optimal (A*) and worst (A°) actions marked.

Painted with QPainter rather than matplotlib: it redraws on every click in the graph and must
be instant, crisp at any DPI, and readable on a projector.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from explaincheck.core.oracle.types import StateFacts
from explaincheck.core.taxonomy.property_units import PropertyUnits
from explaincheck.gui.views import colours

ROW = 24
NORMAL_TEXT_HEIGHT = 15  # a line of the normal (9 pt) text, in pixels


class QBars(QWidget):
    """Horizontal bars, one per labelled action, on a fixed 0..1 axis."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facts: StateFacts | None = None
        # the property's scale (None: Q is a probability on 0..1); ∞ fills the bar in grey
        self.units: PropertyUnits | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(40)

    def set_state(self, facts: StateFacts | None) -> None:
        self.facts = facts
        self.setFixedHeight(self.sizeHint().height())
        self.update()

    def _unit(self) -> float:
        """How much larger than normal the text is (a presentation size): rows grow with it."""
        return max(1.0, QFontMetrics(self.font()).height() / NORMAL_TEXT_HEIGHT)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.setFixedHeight(self.sizeHint().height())

    def sizeHint(self) -> QSize:
        rows = len(self.facts.q) if self.facts and self.facts.q else 1
        u = self._unit()
        return QSize(round(260 * u), round((28 + rows * ROW + 22) * u))

    def rows(self) -> list[tuple[str, float, str]]:
        """(action, Q, mark): mark 'best', 'worst', 'both' (all actions tied) or ''."""
        if self.facts is None:
            return []
        best, worst = set(self.facts.best), set(self.facts.worst)
        out = []
        for action, value in self.facts.q.items():
            in_best, in_worst = action in best, action in worst
            mark = "both" if in_best and in_worst else "best" if in_best else ""
            out.append((action, value, mark or ("worst" if in_worst else "")))
        return out

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = QFontMetrics(self.font())
        palette_text = self.palette().windowText().color()
        rows = self.rows()
        if not rows:
            painter.setPen(palette_text)
            painter.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                "no labelled actions here (goal, trap or deadlock)" if self.facts else "",
            )
            return
        u = self._unit()
        row_height = ROW * u
        widest = max(metrics.horizontalAdvance(a + "  A*=A°") for a, _, _ in rows) + 8
        name_width = min(150 * u, widest)
        left, right = name_width + 6, self.width() - 56 * u
        width = max(10, right - left)
        top = 6 * u
        painter.setPen(palette_text)
        painter.drawText(QRectF(left, top, width, 16 * u), Qt.AlignmentFlag.AlignLeft, "Q(s, a)")
        top += 20 * u
        optimal = self.facts.optimal_action if self.facts else None
        for i, (action, value, mark) in enumerate(rows):
            y = top + i * row_height
            colour = {"best": colours.BEST, "both": colours.BEST, "worst": colours.WORST}.get(
                mark, QColor("#8c8c8c")
            )
            painter.setPen(palette_text)
            tag = {"best": " A*", "worst": " A°", "both": " A*=A°"}.get(mark, "")
            room = name_width - metrics.horizontalAdvance(tag) - 4
            label = metrics.elidedText(action, Qt.TextElideMode.ElideRight, max(10, round(room)))
            painter.drawText(
                QRectF(0, y, name_width, row_height - 4),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                label + tag,
            )
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(colour.red(), colour.green(), colour.blue(), 60))
            painter.drawRect(QRectF(left, y + 3, width, row_height - 10))
            place = self.units.position(value) if self.units else value
            painter.setBrush(colours.INFINITE if place is None else colour)
            share = 1.0 if place is None else max(0.0, min(1.0, place))
            painter.drawRect(QRectF(left, y + 3, width * share, row_height - 10))
            if action == optimal:
                painter.setPen(QPen(colours.OPTIMAL, 2))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(QRectF(left - 2, y + 1, width + 4, row_height - 6))
            painter.setPen(palette_text)
            painter.drawText(
                QRectF(right + 4, y, 52 * u, row_height - 4),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                self.number(value),
            )
        y = top + len(rows) * row_height
        painter.setPen(QPen(palette_text, 1))
        painter.drawLine(int(left), int(y), int(right), int(y))
        for tick in (0.0, 0.5, 1.0):
            x = left + width * tick
            painter.drawLine(int(x), int(y), int(x), int(y + 4))
            painter.drawText(
                QRectF(x - 30 * u, y + 4, 60 * u, 14 * u),
                Qt.AlignmentFlag.AlignHCenter,
                self.tick(tick),
            )

    def number(self, value: float) -> str:
        """Q beside its bar: 3 decimals for a probability, 4 digits for a reward, ∞."""
        if math.isinf(value):
            return "∞"
        return f"{value:.4g}" if self.units and self.units.is_reward else f"{value:.3f}"

    def tick(self, share: float) -> str:
        """The axis value at ``share`` of the bar: the probability, or the reward's range."""
        if self.units is None or not self.units.is_reward:
            return f"{share:g}"
        scale = self.units.scale
        return f"{scale.low + share * (scale.high - scale.low):.3g}"

"""The scene items of the MDP graph: one node per state, one edge per ordered state pair.

Items read the shared ``GraphStyle`` at paint time, so toggling an overlay is one
``scene.update()`` instead of rebuilding thousands of items. Painting uses the level of detail
of the view transform: zoomed out, nodes are plain discs without text. Edges are painted by Qt
itself (no Python per frame) and restyled when an overlay, the hover or the zoom changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from explaincheck.core.oracle.types import StateFacts
from explaincheck.core.taxonomy.property_units import PropertyUnits
from explaincheck.core.workspace.presentation.valuation import ordered_items, valuation_text
from explaincheck.gui.support.safe_text import tooltip
from explaincheck.gui.support.text_size import text_scale
from explaincheck.gui.views import colours

MIN_LABEL_POINTS = 4.5  # a state's id is drawn once its font is this large on the screen


@dataclass
class GraphStyle:
    """What the overlays show; shared by all items of one scene."""

    show: dict[str, bool] = field(
        default_factory=lambda: {
            "initial": True,
            "goal": True,
            "unsafe": True,
            "dead_end": True,
            "bottleneck": True,
            "optimal": False,
        }
    )
    colour_by: str = "value"  # "value" | "danger" | "none"
    # hook: a state's fill from another source (e.g. a flawed explainer's V̂, flaw_colouring.py)
    fill_source: Callable[[int], QColor | None] | None = None
    scale_title: str = ""  # the legend's scale title when fill_source sets the colours
    scale_ends: tuple[str, str] | None = None  # and the texts at its ends (None: "0", "1")
    # hooks of a loaded policy (policy_overlay.py): a line under a state, its edges emphasised
    caption_source: Callable[[int], str] | None = None
    edge_emphasis: Callable[[int, dict[str, float]], bool] | None = None
    labels: str = "id"  # "id" | "valuation"
    # the environment's variable order and names ("r" -> "row"), as the words use them
    variables: dict[str, str] = field(default_factory=dict)
    thin: bool = False  # zoomed far out: edges one pixel wide (see EdgeOverview)
    # the property in use: V's position on its colour scale, its unit and ∞ (None: V is a
    # probability, drawn as itself)
    units: PropertyUnits | None = None


def highlight_glow() -> QColor:
    """The translucent disc behind a highlighted state (the graph legend draws the same)."""
    glow = QColor(colours.HIGHLIGHT)
    glow.setAlpha(110)
    return glow


def compact_valuation(valuation: dict, variables: dict[str, str] | None = None) -> str:
    """``r=3 c=2`` in the environment's variable order (Storm's order for unnamed ones)."""
    return " ".join(f"{k}={_short(v)}" for k, _name, v in ordered_items(valuation, variables))


def _short(value: Any) -> str:
    if isinstance(value, bool):
        return "T" if value else "F"
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


class NodeItem(QGraphicsRectItem):
    """One state: a disc coloured by V or D, with rings for its marks.

    A rect item only so that Qt answers ``boundingRect`` in C++ (asked for every node on every
    frame); the picture is painted here and cached as a pixmap (DeviceCoordinateCache)."""

    def __init__(self, facts: StateFacts, radius: float, style: GraphStyle) -> None:
        super().__init__()
        self.facts = facts
        self.state_id = facts.id
        self.radius = radius
        self.style = style
        self.marks = self._marks_of(facts)
        self.expandable = False  # has neighbours that are not shown
        self.highlighted = False  # part of the selected test case
        self.on_path = False  # on the path shown by the teaching view
        self.setAcceptHoverEvents(True)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        # panning repaints the viewport: reuse each node's pixmap instead of redrawing its text
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(2)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(self._tooltip())
        r = radius * 1.75
        self.setRect(QRectF(-r - 16, -r, 2 * r + 32, 2 * r + radius * 1.6))
        self.setPen(QPen(Qt.PenStyle.NoPen))

    @staticmethod
    def _marks_of(facts: StateFacts) -> set[str]:
        return set(facts.roles)

    def visible_marks(self) -> set[str]:
        """The marks drawn under the current toggles (what a user sees)."""
        return {m for m in self.marks if self.style.show.get(m, False)}

    def fill(self) -> QColor:
        if self.style.fill_source is not None:
            colour = self.style.fill_source(self.state_id)
            if colour is not None:
                return colour
        if self.style.colour_by == "value":
            units = self.style.units
            if units is None:
                return colours.value_colour(self.facts.value)
            place = units.position(self.facts.value)
            return colours.INFINITE if place is None else colours.value_colour(place)
        if self.style.colour_by == "danger" and self.facts.danger is not None:
            return colours.danger_colour(self.facts.danger)
        return colours.NEUTRAL_FILL

    def _tooltip(self) -> str:
        f = self.facts
        lines = [f"state {f.id}: {valuation_text(f.valuation, self.style.variables)}"]
        if f.labels:
            lines.append("labels: " + ", ".join(f.labels))
        danger = f", D = {f.danger:.4g}" if f.danger is not None else ""
        units = self.style.units
        shown = (
            f"{f.value:.4g}"
            if math.isfinite(f.value) or units is None
            else units.value_text(f.value)
        )
        lines.append(f"V = {shown}{danger}")
        if f.best:
            lines.append("A* = " + ", ".join(f.best))
        marks = sorted(self.marks - {"initial"})
        if marks:
            lines.append(", ".join(m.replace("_", " ") for m in marks))
        return tooltip("\n".join(lines))

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addEllipse(QPointF(0, 0), self.radius, self.radius)
        return path

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        r = self.radius
        show = self.visible_marks()
        fill = self.fill()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, lod > 0.25)
        if self.highlighted:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(highlight_glow())
            painter.drawEllipse(QPointF(0, 0), r * 1.7, r * 1.7)
        if self.on_path:
            painter.setPen(QPen(colours.PATH, r * 0.16, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(QPointF(0, 0), r * 1.42, r * 1.42)
        if "bottleneck" in show:
            painter.setPen(QPen(colours.BOTTLENECK, max(2.0, r * 0.2)))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            s = r * 1.45
            diamond = QPolygonF([QPointF(0, -s), QPointF(s, 0), QPointF(0, s), QPointF(-s, 0)])
            painter.drawPolygon(diamond)
        border = QPen(QColor("#555555"), max(1.0, r * 0.06))
        if "initial" in show:
            border = QPen(colours.INITIAL, r * 0.22)
        painter.setPen(border)
        painter.setBrush(QBrush(fill))
        painter.drawEllipse(QPointF(0, 0), r, r)
        if "goal" in show:
            painter.setPen(QPen(colours.GOAL, r * 0.14))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(QPointF(0, 0), r * 1.22, r * 1.22)
        if "unsafe" in show:
            pen = QPen(colours.UNSAFE, r * 0.14, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(QPointF(0, 0), r * 1.22, r * 1.22)
        if "initial" in show:
            painter.setPen(QPen(colours.INITIAL, r * 0.12))
            painter.drawLine(QPointF(-r * 1.95, 0), QPointF(-r * 1.15, 0))
            head = QPolygonF(
                [QPointF(-r * 1.08, 0), QPointF(-r * 1.4, -r * 0.22), QPointF(-r * 1.4, r * 0.22)]
            )
            painter.setBrush(colours.INITIAL)
            painter.drawPolygon(head)
        if "dead_end" in show:  # a badge, so the state's number stays readable
            c = QPointF(r * 0.72, r * 0.72)
            b = r * 0.36
            painter.setPen(QPen(QColor("#ffffff"), r * 0.06))
            painter.setBrush(colours.DEAD_END)
            painter.drawEllipse(c, b, b)
            painter.setPen(
                QPen(QColor("#ffffff"), r * 0.09, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
            )
            d = b * 0.5
            painter.drawLine(c + QPointF(-d, -d), c + QPointF(d, d))
            painter.drawLine(c + QPointF(-d, d), c + QPointF(d, -d))
        if self.isSelected():
            painter.setPen(QPen(colours.SELECTED, r * 0.16, Qt.PenStyle.DotLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(QPointF(0, 0), r * 1.55, r * 1.55)
        # the presentation size enlarges the labels (the id as far as it fits in its disc)
        scale = text_scale()
        label = r * min(0.5 * scale, 0.72)
        if lod * label < MIN_LABEL_POINTS:  # too small to read any text
            return
        font = QFont()
        font.setPointSizeF(max(1.0, label))
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(colours.text_on(fill))
        box = QRectF(-r, -r, 2 * r, 2 * r)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, str(self.state_id))
        if self.expandable:
            painter.setPen(QColor("#333333"))
            font.setPointSizeF(max(1.0, r * 0.55))
            painter.setFont(font)
            painter.drawText(QRectF(r * 0.55, -r * 1.35, r, r), Qt.AlignmentFlag.AlignCenter, "+")
        caption = self._caption()
        if caption and lod * r * 0.36 * scale >= MIN_LABEL_POINTS * 1.28:
            small = QFont()
            small.setPointSizeF(max(1.0, r * 0.36 * scale))
            painter.setFont(small)
            painter.setPen(QColor("#333333"))
            painter.drawText(
                QRectF(-r * 1.75 - 16, r * 1.05, 2 * r * 1.75 + 32, r * 1.5),
                Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                caption,
            )

    def _caption(self) -> str:
        parts = []
        if self.style.labels == "valuation":
            parts.append(compact_valuation(self.facts.valuation, self.style.variables))
        if self.style.show.get("optimal") and self.facts.optimal_action:
            parts.append(f"→ {self.facts.optimal_action}")
        if self.style.caption_source is not None:
            parts.append(self.style.caption_source(self.state_id))
        return "\n".join(p for p in parts if p)

    def hoverEnterEvent(self, event: Any) -> None:
        self.setScale(1.12)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: Any) -> None:
        self.setScale(1.0)
        super().hoverLeaveEvent(event)


class EdgeItem(QGraphicsPathItem):
    """Transitions from one state to another (all actions together); hover shows them.

    Painted by Qt in C++ (one path: the curve and a chevron head, stroked with its pen): a
    Python ``paint`` per edge per frame cost half a second when panning a 1,000-state graph.
    ``restyle`` sets the pen from the overlays, the hover and the zoom (``GraphStyle.thin``).
    """

    def __init__(
        self,
        source: NodeItem,
        target: NodeItem,
        actions: dict[str, float],
        bend: bool,
        style: GraphStyle,
    ) -> None:
        super().__init__()
        self.source, self.target = source, target
        self.actions = actions
        self.style = style
        self.optimal = source.facts.optimal_action in actions
        self.hovered = False
        self.on_path = False
        self.setAcceptHoverEvents(True)
        self.setZValue(1)
        self._build(bend)
        self.restyle()
        lines = [f"{source.state_id} → {target.state_id}"]
        for action, probability in sorted(actions.items(), key=lambda kv: -kv[1]):
            star = " (optimal)" if action == source.facts.optimal_action else ""
            lines.append(f"{action}: {probability:.4g}{star}")
        self.setToolTip(tooltip("\n".join(lines)))

    def _build(self, bend: bool) -> None:
        p, q = self.source.pos(), self.target.pos()
        dx, dy = q.x() - p.x(), q.y() - p.y()
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        nx_, ny_ = -uy, ux  # left normal
        offset = length * 0.12 if bend else 0.0
        r_s, r_t = self.source.radius, self.target.radius
        # leave and enter at the rims, shifted to the bend side
        shift_x, shift_y = nx_ * offset * 0.3, ny_ * offset * 0.3
        start = QPointF(p.x() + ux * r_s + shift_x, p.y() + uy * r_s + shift_y)
        end = QPointF(q.x() - ux * r_t + shift_x, q.y() - uy * r_t + shift_y)
        control = QPointF((p.x() + q.x()) / 2 + nx_ * offset, (p.y() + q.y()) / 2 + ny_ * offset)
        path = QPainterPath(start)
        if bend:
            path.quadTo(control, end)
            tx, ty = end.x() - control.x(), end.y() - control.y()
        else:
            path.lineTo(end)
            tx, ty = ux, uy
        t_len = math.hypot(tx, ty) or 1.0
        tx, ty = tx / t_len, ty / t_len
        size = max(5.0, min(r_t * 0.45, 10.0))
        back_x, back_y = end.x() - tx * size, end.y() - ty * size
        side_x, side_y = -ty * size * 0.5, tx * size * 0.5
        # the head is an open chevron in the same path: one item per edge, stroked, no fill
        path.moveTo(back_x + side_x, back_y + side_y)
        path.lineTo(end)
        path.lineTo(back_x - side_x, back_y - side_y)
        self.setPath(path)

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(8)
        return stroker.createStroke(self.path())

    def emphasised(self) -> bool:
        if self.style.edge_emphasis is not None and self.style.edge_emphasis(
            self.source.state_id, self.actions
        ):
            return True
        return self.on_path or (self.optimal and self.style.show.get("optimal", False))

    def restyle(self) -> None:
        """Pen and arrow from the overlays, the hover and the zoom level."""
        strong = self.emphasised()
        colour = colours.PATH if self.on_path else colours.OPTIMAL if strong else colours.EDGE
        if self.hovered:
            colour = colours.HIGHLIGHT
        width = 3.0 if self.hovered else 3.2 if strong else 1.2
        pen = QPen(colour, width)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        # zoomed out, a scene-unit pen would vanish: one device pixel wide instead
        pen.setCosmetic(self.style.thin)
        self.setPen(pen)

    def hoverEnterEvent(self, event: Any) -> None:
        self.hovered = True
        self.setZValue(1.5)
        self.restyle()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: Any) -> None:
        self.hovered = False
        self.setZValue(1)
        self.restyle()
        super().hoverLeaveEvent(event)


class EdgeOverview(QGraphicsPathItem):
    """All edges as one path of straight hairlines, shown instead of the edge items when zoomed
    far out: Qt pays a fixed cost per item per frame (tens of microseconds through the Python
    binding), so 3,500 edge items cost most of a panning frame while one path costs little."""

    def __init__(self, edges: Iterable[EdgeItem]) -> None:
        super().__init__()
        path = QPainterPath()
        for edge in edges:
            path.moveTo(edge.source.pos())
            path.lineTo(edge.target.pos())
        self.setPath(path)
        pen = QPen(colours.EDGE, 1.0)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setZValue(1)
        self.setAcceptHoverEvents(False)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

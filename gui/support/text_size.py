"""The presentation size on Qt's side: the application's font at a share of its normal size,
and the fonts made relative to it (issue 50, point 6).

Why this way: ``QApplication.setFont`` reaches every widget whose font is not set by hand, so
most of the window grows at once. A widget that sets its own font (a title 1.3 times the text,
the editor's fixed-pitch font, Teach's large cards) sets it through ``relative_font``, which
remembers the factor on the widget and is applied again whenever the size changes. What Qt does
not draw with a widget font (the graph's labels and legend, matplotlib's plots) listens to
``notifier().changed`` and reads ``text_scale()``.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication, QWidget

_FACTOR, _BOLD, _FIXED = "textSizeFactor", "textSizeBold", "textSizeFixed"


class _Notifier(QObject):
    changed = Signal(float)  # the new scale (1.0 = normal)


class _State:
    scale = 1.0
    normal_point: float | None = None  # the application font's size at 100 %
    normal_fixed: float | None = None  # the fixed-pitch font's size at 100 %
    notifier: _Notifier | None = None


def notifier() -> _Notifier:
    """Emits ``changed(scale)`` after the presentation size changed."""
    if _State.notifier is None:
        _State.notifier = _Notifier()
    return _State.notifier


def text_scale() -> float:
    """The presentation size as a factor (1.5 at 150 %)."""
    return _State.scale


def normal_font() -> QFont:
    """The application's font at 100 % (what a small key beside a drawing keeps)."""
    font = QFont(QApplication.font())
    font.setPointSizeF(_normal_sizes()[0])
    return font


def _normal_sizes() -> tuple[float, float]:
    if _State.normal_point is None or _State.normal_fixed is None:
        _State.normal_point = QApplication.font().pointSizeF() or 9.0
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).pointSizeF()
        _State.normal_fixed = fixed if fixed > 0 else _State.normal_point
    return _State.normal_point, _State.normal_fixed


def relative_font(
    widget: QWidget, factor: float = 1.0, bold: bool | None = None, fixed: bool = False
) -> None:
    """Give ``widget`` a font ``factor`` times the text size (``fixed``: the system's fixed
    pitch font), bold or not as asked, kept so at every presentation size."""
    widget.setProperty(_FACTOR, float(factor))
    widget.setProperty(_BOLD, bold)
    widget.setProperty(_FIXED, fixed)
    _apply(widget)


def _apply(widget: QWidget) -> None:
    factor = float(widget.property(_FACTOR))
    point, fixed_point = _normal_sizes()
    if widget.property(_FIXED):
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(fixed_point * _State.scale * factor)
    else:
        font = QFont(widget.font())
        font.setPointSizeF(point * _State.scale * factor)
    bold = widget.property(_BOLD)
    if bold is not None:
        font.setBold(bool(bold))
    widget.setFont(font)


def set_text_scale(scale: float) -> None:
    """Draw every view's text at ``scale`` times the normal size."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    point, _fixed = _normal_sizes()
    _State.scale = scale
    font = QFont(app.font())
    font.setPointSizeF(point * scale)
    app.setFont(font)
    # Qt tells the widgets by posted events: deliver them now, so that what follows (and a
    # caller) sees every widget at the new size
    QCoreApplication.sendPostedEvents(None, QEvent.Type.ApplicationFontChange)
    # under a style sheet (the theme's) widgets keep the font they were polished with: polish
    # them again so that every one takes the new size
    if app.styleSheet():
        app.setStyleSheet(app.styleSheet())
    fixed_family = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
    for widget in app.allWidgets():
        if widget.property(_FACTOR) is None and _fixed_by_hand(widget, fixed_family):
            widget.setProperty(_FACTOR, 1.0)  # a prompt or an excerpt in the fixed-pitch font
            widget.setProperty(_FIXED, True)
        if widget.property(_FACTOR) is not None:
            _apply(widget)
    notifier().changed.emit(scale)


def _fixed_by_hand(widget: QWidget, family: str) -> bool:
    """Whether ``widget`` was given the system's fixed-pitch font by hand (its size then does
    not follow the application's font): it is made relative like the rest."""
    return widget.testAttribute(Qt.WidgetAttribute.WA_SetFont) and widget.font().family() == family

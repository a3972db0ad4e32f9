"""Light and dark themes: Fusion style, a palette, and the small style sheet in resources/."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from explaincheck.core.paths import resources_dir


def style_sheet() -> str:
    path = resources_dir() / "style.qss"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def dark_palette() -> QPalette:
    palette = QPalette()
    base, window, text = QColor("#1e1f22"), QColor("#2b2d30"), QColor("#dfe1e5")
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        palette.setColor(group, QPalette.ColorRole.Window, window)
        palette.setColor(group, QPalette.ColorRole.WindowText, text)
        palette.setColor(group, QPalette.ColorRole.Base, base)
        palette.setColor(group, QPalette.ColorRole.AlternateBase, QColor("#26282b"))
        palette.setColor(group, QPalette.ColorRole.Text, text)
        palette.setColor(group, QPalette.ColorRole.Button, window)
        palette.setColor(group, QPalette.ColorRole.ButtonText, text)
        palette.setColor(group, QPalette.ColorRole.Highlight, QColor("#2f65ca"))
        palette.setColor(group, QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
        palette.setColor(group, QPalette.ColorRole.ToolTipBase, window)
        palette.setColor(group, QPalette.ColorRole.ToolTipText, text)
        # Qt's default placeholder is dark grey: invisible on the dark base
        palette.setColor(group, QPalette.ColorRole.PlaceholderText, QColor("#8c9099"))
    disabled = QColor("#7a7e85")
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


_system_look: tuple[str, QPalette] | None = None  # the platform's style and palette


def apply_theme(app: QApplication, theme: str) -> None:
    """``system`` is the platform look (given back when chosen after light or dark, without a
    restart); ``light``/``dark`` use Fusion with a fixed palette."""
    global _system_look
    if _system_look is None:  # first call: nothing has changed the platform look yet
        _system_look = (app.style().name(), QPalette(app.palette()))
    if theme in ("light", "dark"):
        app.setStyle("Fusion")
        app.setPalette(dark_palette() if theme == "dark" else app.style().standardPalette())
    else:
        style, palette = _system_look
        app.setStyle(style)
        app.setPalette(palette)
    app.setStyleSheet(style_sheet())

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
    disabled = QColor("#7a7e85")
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


def apply_theme(app: QApplication, theme: str) -> None:
    """``system`` keeps the platform look; ``light``/``dark`` use Fusion with a fixed palette."""
    if theme in ("light", "dark"):
        app.setStyle("Fusion")
        app.setPalette(dark_palette() if theme == "dark" else app.style().standardPalette())
    app.setStyleSheet(style_sheet())

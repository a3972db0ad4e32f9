"""Render resources/icons/explaincheck.svg into the PNG sizes desktops and installers ask for.

Run from the repository root: ``QT_QPA_PLATFORM=offscreen python packaging/make_icons.py``.
The PNGs are committed; run this again only after changing the SVG.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 32, 48, 64, 128, 256)
FULL = "explaincheck.svg"
SMALL = "explaincheck-small.svg"  # fewer, bolder shapes that stay legible at 16 px
SMALL_UP_TO = 16
ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"


def render(svg: Path, size: int, out: Path) -> None:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {svg}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"cannot write {out}")


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])
    for size in SIZES:
        out = ICONS / f"explaincheck-{size}.png"
        render(ICONS / (SMALL if size <= SMALL_UP_TO else FULL), size, out)
        print(out.relative_to(ICONS.parent.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())

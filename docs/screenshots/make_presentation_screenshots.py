"""The teaching screens at a presentation size, as a class sees them (issue 50, points 6-10).

    QT_QPA_PLATFORM=offscreen python docs/screenshots/make_presentation_screenshots.py
    # under a real window manager (Xvfb + openbox), the whole screen with the window's frame:
    DISPLAY=:57 QT_QPA_PLATFORM=xcb python docs/screenshots/make_presentation_screenshots.py \
        --screen 1366x768 --text-size 150

Frozen Lake at the given presentation size: the Workbench's Bellman page (state 13's equation;
with ``--extra`` also policy iteration's last round and the editor), and the Teach tab with
every step revealed.
Offscreen the window is drawn at ``--screen``'s size; on a real display it opens as a first
start does (maximised where 1600x1000 does not fit) and the whole screen is saved, frame and
panel included. Saved as ``presentation-<W>x<H>-<text size>-<view>.png``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


async def shoot(window, out: Path, name: str, real_screen: bool, extra: bool) -> list[Path]:
    from make_workbench_screenshots import until
    from PySide6.QtWidgets import QApplication

    saved = []

    async def save(view: str) -> None:
        await window.wait_rendered()
        await until(lambda: window.tasks.idle)
        await asyncio.sleep(0.8)
        QApplication.processEvents()
        path = out / f"presentation-{name}-{view}.png"
        # on a real display, the screen as a user sees it: the frame and the panel too
        screen = QApplication.primaryScreen()
        picture = screen.grabWindow(0) if real_screen else window.grab()
        picture.save(str(path), "PNG")
        saved.append(path)

    bench = window.workbench
    window.model.open_spec("frozen_lake")
    await window.wait_rendered()
    await until(lambda: bench.bellman.transitions is not None)
    window.show_tab("workbench")
    bellman = bench.bellman
    bench.pages.setCurrentWidget(bellman)
    window.model.selection.select(13)  # as a click on state 13 does: every view goes there
    await save("workbench-bellman")
    if extra:
        bellman.start_policy_iteration()
        bellman.show_round(len(bellman.rounds) - 1)
        await save("workbench-policy-iteration")
        bench.pages.setCurrentWidget(bench.editor)
        bench.editor.load_button.click()
        await save("workbench-editor")
    teach = window.teach_view
    window.show_tab("teach")
    await until(lambda: teach.ready and teach.lesson is not None)
    teach.reveal_all()
    await save("teach")
    return saved


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screen", default="1366x768", help="WxH of the screen (offscreen)")
    parser.add_argument("--text-size", type=int, default=150, help="presentation size, %%")
    parser.add_argument("--out", default=str(HERE), help="folder for the PNG files")
    parser.add_argument(
        "--extra", action="store_true", help="also policy iteration's last round and the editor"
    )
    args = parser.parse_args(argv)
    width, height = (int(part) for part in args.screen.split("x"))
    from make_screenshots import start_offscreen_app

    from explaincheck.gui.main_window import MainWindow
    from explaincheck.gui.support.settings import Settings

    _app, loop, _scratch = start_offscreen_app()
    real_screen = os.environ.get("QT_QPA_PLATFORM") != "offscreen"
    settings = Settings()
    prefs = settings.preferences()
    prefs.text_size = args.text_size
    settings.save_preferences(prefs)
    window = MainWindow(settings)
    if real_screen:
        window.show_first()
    else:
        window.resize(width, height)
        window.show()
    window.start()
    name = f"{width}x{height}-{args.text_size}"
    shots = shoot(window, Path(args.out), name, real_screen, args.extra)
    for path in loop.run_until_complete(shots):
        print(path)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

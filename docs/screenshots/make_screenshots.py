"""Regenerate the window screenshots in this folder (offscreen).

    QT_QPA_PLATFORM=offscreen python docs/screenshots/make_screenshots.py [ENV ...]

For each environment: open it, run a small campaign with the random and oracle answerers into a
temporary database, then save the Graph, Campaign, Results, Report and Teach tabs at 1600x1000 as
``<env>-<view>.png``. For the first environment, the Campaign and Results tabs are also saved at
the smallest and largest usual screen sizes (``layout-<W>x<H>-<view>.png``; every tab at
1366x768), to check the layout.
The same window code as ``explaincheck gui --screenshot`` is used.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENVIRONMENTS = ("frozen_lake", "wolf_goat_cabbage")
SIZE = (1600, 1000)
LAYOUT_SIZES = ((1366, 768), (1920, 1080))
LAYOUT_VIEWS = {(1366, 768): ("graph", "campaign", "results", "report", "teach", "workbench")}


async def shoot(window, env: str, out: Path, db: Path) -> list[Path]:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    saved = []

    async def save(view: str) -> None:
        await window.wait_rendered()
        await asyncio.sleep(0.4)
        QApplication.processEvents()
        path = out / f"{env}-{view}.png"
        window.grab().save(str(path), "PNG")
        saved.append(path)

    window.model.open_spec(env)
    await window.wait_rendered()
    oracle = window.model.oracle
    if oracle is None:
        raise RuntimeError(f"{env}: {window.errors}")
    campaign = window.campaign_view
    for i in range(campaign.llms.count()):
        spec = campaign.llms.item(i).data(Qt.ItemDataRole.UserRole)
        campaign.llm_box.set_llm_checked(spec, spec in ("random", "oracle"))
    campaign.budget.setValue(5)
    campaign.selection.setCurrentIndex(campaign.selection.findData("both"))
    campaign.database.setText(str(db))
    window.run_campaign()
    await asyncio.sleep(0.2)
    while window.campaigns.running or not window.tasks.idle:
        await asyncio.sleep(0.1)

    window.show_tab("campaign")
    await save("campaign")

    window.show_tab("graph")
    if oracle.bottlenecks:
        window.graph.select_state(oracle.bottlenecks[0], centre=False)
    window.graph.view.fit()
    await save("graph")

    window.show_tab("results")
    window.results_view.executions.select_first_failure()
    await save("results")

    window.show_tab("report")
    await save("report")

    teach = window.teach_view
    window.show_tab("teach")
    teach.category.setCurrentIndex(teach.category.findData("bottleneck"))
    await window.wait_rendered()
    if oracle.bottlenecks:
        teach.show_state(oracle.bottlenecks[0])
    random_index = teach.llm.findData("random")
    teach.llm.setCurrentIndex(max(0, random_index))
    teach.reveal_all()
    await save("teach")

    teach.category.setCurrentIndex(teach.category.findData("which_bottleneck"))
    await window.wait_rendered()
    if teach.lesson is not None and teach.lesson.case.category == "which_bottleneck":
        teach.reveal_all()
        await save("teach-pair")
    return saved


async def shoot_layout(window, env: str, out: Path, size: tuple[int, int]) -> list[Path]:
    """The tabs at another window size (after ``shoot`` filled them): all five on a laptop,
    Campaign and Results on a large screen. The window must take exactly that size."""
    from PySide6.QtWidgets import QApplication

    window.resize(*size)
    if (window.width(), window.height()) != size:
        raise RuntimeError(f"the window cannot be {size}: it is {window.width()}x{window.height()}")
    saved = []
    for view in LAYOUT_VIEWS.get(size, ("campaign", "results")):
        window.show_tab(view)
        if view == "teach":
            window.teach_view.reveal_all()
        if view == "results":  # select again: the Teach tab moved the inspector meanwhile
            window.results_view.executions.table.clearSelection()
            window.results_view.executions.select_first_failure()
        await window.wait_rendered()
        await asyncio.sleep(0.4)
        QApplication.processEvents()
        path = out / f"layout-{size[0]}x{size[1]}-{view}.png"
        window.grab().save(str(path), "PNG")
        saved.append(path)
    window.resize(*SIZE)
    return saved


def start_offscreen_app() -> tuple[object, object, Path]:
    """An offscreen QApplication in the light theme with its qasync loop, and a scratch folder
    whose settings file is the one ``Settings()`` uses (shared by the screenshot scripts)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    scratch = Path(tempfile.mkdtemp(prefix="explaincheck-shots-"))
    os.environ["EXPLAINCHECK_SETTINGS"] = str(scratch / "settings.ini")
    import qasync

    from explaincheck.gui.app import create_app
    from explaincheck.gui.support.tasks import prepare_worker_threads
    from explaincheck.gui.support.theme import apply_theme

    app = create_app()
    apply_theme(app, "light")
    loop = qasync.QEventLoop(app)
    prepare_worker_threads(loop)
    asyncio.set_event_loop(loop)
    return app, loop, scratch


def main(argv: list[str]) -> int:
    from explaincheck.gui.main_window import MainWindow
    from explaincheck.gui.support.settings import Settings

    _app, loop, scratch = start_offscreen_app()
    for number, env in enumerate(argv or ENVIRONMENTS):
        window = MainWindow(Settings())
        window.resize(*SIZE)
        window.show()
        window.start()
        saved = loop.run_until_complete(shoot(window, env, HERE, scratch / f"{env}.sqlite"))
        if number == 0:
            for size in LAYOUT_SIZES:
                saved += loop.run_until_complete(shoot_layout(window, env, HERE, size))
        for path in saved:
            print(path.relative_to(HERE.parent.parent))
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

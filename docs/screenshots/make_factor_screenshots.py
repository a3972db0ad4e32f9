"""Regenerate the factor panel screenshots in this folder (offscreen).

    QT_QPA_PLATFORM=offscreen python docs/screenshots/make_factor_screenshots.py

Opens frozen_lake, runs a small ``factors`` campaign with the random and oracle answerers and
the behavioural check into a temporary database, then saves the Results tab (a random answer's
factor marks, the slip factor selected: its Q bars), the Graph tab (where A* changes without the
slip) and the Teach tab (a factors case with its panel) as ``frozen_lake-factors-<view>.png``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE = (1600, 1000)
FACTOR = "slippery_ice"


async def shoot(window, out: Path, db: Path) -> list[Path]:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    saved = []

    async def save(view: str) -> None:
        await window.wait_rendered()
        while not window.tasks.idle:
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.4)
        QApplication.processEvents()
        path = out / f"frozen_lake-factors-{view}.png"
        window.grab().save(str(path), "PNG")
        saved.append(path)

    window.model.open_spec("frozen_lake")
    await window.wait_rendered()
    campaign = window.campaign_view
    while "factors" not in campaign.category_box.reasons and not window.tasks.idle:
        await asyncio.sleep(0.1)
    for i in range(campaign.llms.count()):
        spec = campaign.llms.item(i).data(Qt.ItemDataRole.UserRole)
        campaign.llm_box.set_llm_checked(spec, spec in ("random", "oracle"))
    campaign.category_box.set_categories(["factors"])
    campaign.budget.setValue(4)
    campaign.behavioural.setChecked(True)
    campaign.database.setText(str(db))
    window.run_campaign()
    await asyncio.sleep(0.2)
    while window.campaigns.running or not window.tasks.idle:
        await asyncio.sleep(0.1)

    window.show_tab("results")
    executions = window.results_view.executions
    executions.set_filter("llm", "random")
    executions.select_row(0)
    panel = window.results_view.factor_panel
    while panel.picture is None:
        await asyncio.sleep(0.1)
    panel.select_factor(FACTOR)
    while panel.shown is None:
        await asyncio.sleep(0.1)
    executions.split.setSizes([120, 0, 850])  # room for the case view
    await asyncio.sleep(0.2)  # the case view fits its columns first
    executions.detail.right.setSizes([60, 0, 90, 560])  # reply, thinking, answers; factors
    await save("results")

    window.show_tab("graph")
    window.graph.view.fit()
    await save("graph")

    teach = window.teach_view
    window.show_tab("teach")
    teach.category.setCurrentIndex(teach.category.findData("factors"))
    while teach.lesson is None or teach.lesson.case.category != "factors" or not teach.ready:
        await asyncio.sleep(0.1)
    teach.llm.setCurrentIndex(max(0, teach.llm.findData("random")))
    teach.reveal_all()
    while teach.factor_panel.picture is None:
        await asyncio.sleep(0.1)
    teach.factor_panel.select_factor(FACTOR)
    while teach.factor_panel.shown is None:
        await asyncio.sleep(0.1)
    await save("teach")
    return saved


def main() -> int:
    from make_screenshots import start_offscreen_app

    from explaincheck.gui.main_window import MainWindow
    from explaincheck.gui.support.settings import Settings

    _app, loop, scratch = start_offscreen_app()
    window = MainWindow(Settings())
    window.resize(*SIZE)
    window.show()
    window.start()
    for path in loop.run_until_complete(shoot(window, HERE, scratch / "factors.sqlite")):
        print(path.relative_to(HERE.parent.parent))
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

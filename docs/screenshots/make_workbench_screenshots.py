"""Regenerate the Workbench screenshots in this folder at 1366 x 768 (offscreen).

    QT_QPA_PLATFORM=offscreen python docs/screenshots/make_workbench_screenshots.py

Frozen Lake: the editor with a syntax error underlined, the simulator after a seeded walk by the
optimal policy with the five most probable paths, the Bellman view of state 13 (V = 16/17) and
policy iteration's last round; tests/models/slip.prism: the sweep of slip over the range the
page offers (a probability: 0 to 1), its tipping point at 39/400 and the state that flips
followed. Saved as ``workbench-<page>.png``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SLIP = HERE.parent.parent / "tests" / "models" / "slip.prism"
SIZE = (1366, 768)


async def until(condition, timeout: float = 120.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError("the window did not get there in time")
        await asyncio.sleep(0.1)


async def shoot(window, out: Path) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    from explaincheck.core.environments.registry import resolve

    saved = []
    bench = window.workbench

    async def save(page: str) -> None:
        await window.wait_rendered()
        await until(lambda: window.tasks.idle)
        await asyncio.sleep(0.5)
        QApplication.processEvents()
        path = out / f"workbench-{page}.png"
        window.grab().save(str(path), "PNG")
        saved.append(path)

    window.model.open_spec("frozen_lake")
    await window.wait_rendered()
    await until(lambda: bench.bellman.transitions is not None)
    window.show_tab("workbench")

    bench.pages.setCurrentWidget(bench.editor)
    bench.editor.load_button.click()
    text = bench.editor.editor.toPlainText()
    bench.editor.editor.setPlainText(
        text.replace("c : [0..N - 1] init 0;", "c : [0..N - 1] init 0")
    )
    await until(lambda: bench.editor.editor.error is not None)
    bench.editor.editor.centerCursor()
    await save("editor")
    bench.editor.editor.setPlainText(text)
    await until(
        lambda: bench.editor.editor.error is None and "No errors" in bench.editor.status.text()
    )
    await until(lambda: bench.simulator.transitions is not None)  # the edited copy's

    simulator = bench.simulator
    bench.pages.setCurrentWidget(simulator)
    simulator.seed.setValue(11)
    simulator.chooser.setCurrentIndex(simulator.chooser.findData("optimal"))
    simulator.restart(None)
    simulator.run(20)
    simulator.paths_button.click()
    await until(lambda: simulator.paths.count() == 5 and "P =" in simulator.paths.item(0).text())
    await save("simulator")

    bellman = bench.bellman
    bench.pages.setCurrentWidget(bellman)
    window.model.selection.select(13)  # as a click does: the inspector and both graphs follow
    await save("bellman")
    bellman.start_policy_iteration()
    bellman.show_round(len(bellman.rounds) - 1)
    await save("policy-iteration")

    window.model.open_environment(resolve(str(SLIP), constants="slip=0.3"))
    await until(lambda: window.model.oracle is not None and window.model.oracle.model.states == 3)
    await window.wait_rendered()
    sweeps = bench.sweeps
    bench.pages.setCurrentWidget(sweeps)
    await until(lambda: sweeps.constant.count() == 1)
    sweeps.run_button.click()  # the range offered: 0 to 1, every state searched
    await until(lambda: sweeps.sweep is not None, 300)
    await save("sweep")
    return saved


def main() -> int:
    from make_screenshots import start_offscreen_app

    from explaincheck.gui.main_window import MainWindow
    from explaincheck.gui.support.settings import Settings

    _app, loop, _scratch = start_offscreen_app()
    window = MainWindow(Settings())
    window.resize(*SIZE)
    window.show()
    window.start()
    for path in loop.run_until_complete(shoot(window, HERE)):
        print(path.relative_to(HERE.parent.parent))
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

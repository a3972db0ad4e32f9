"""Regenerate the self-check screenshot of the policy view (offscreen, 1366x768).

    QT_QPA_PLATFORM=offscreen python docs/screenshots/make_selfcheck_screenshot.py DB SPEC [BUDGET]

Opens Frozen Lake, asks SPEC through File › Ask an LLM for its policy… with "then ask it about
its own policy" ticked, into the results file DB (a file where that self-check is stored already
resumes without asking), and saves the Report tab, which shows a file holding only a
self-check as one (its value-loss table and Self-check box first), as
``frozen_lake-selfcheck-report.png``. The same window code as
``explaincheck gui`` is used.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from make_screenshots import start_offscreen_app

HERE = Path(__file__).resolve().parent
SIZE = (1366, 768)


async def shoot(window, db: str, spec: str, budget: int) -> Path:
    from PySide6.QtWidgets import QApplication

    from explaincheck.gui.adapters.llm_policy import PolicyAsk

    window.model.open_spec("frozen_lake")
    await window.wait_rendered()
    before = window.model.oracle
    if not window.llm_policy.ask(PolicyAsk(spec, budget, "uniform", db, selfcheck=True)):
        raise RuntimeError(window.errors[-1])
    box = window.report_view.policy_loss.selfcheck
    while window.model.oracle is before or box.isHidden() or not window.tasks.idle:
        await asyncio.sleep(0.2)
    window.show_tab("report")
    await window.wait_rendered()
    await asyncio.sleep(0.4)
    QApplication.processEvents()
    # a file holding only the self-check: its boxes come first, the page unscrolled
    scroll = window.report_view.scroll_area
    scroll.verticalScrollBar().setValue(0)
    scroll.horizontalScrollBar().setValue(0)
    await asyncio.sleep(0.4)
    QApplication.processEvents()
    path = HERE / "frozen_lake-selfcheck-report.png"
    window.grab().save(str(path), "PNG")
    return path


def main(argv: list[str]) -> int:
    from explaincheck.gui.main_window import MainWindow
    from explaincheck.gui.support.settings import Settings

    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    _app, loop, _scratch = start_offscreen_app()
    window = MainWindow(Settings())
    window.resize(*SIZE)
    window.show()
    window.start()
    budget = int(argv[2]) if len(argv) > 2 else 20
    path = loop.run_until_complete(shoot(window, argv[0], argv[1], budget))
    print(path.relative_to(HERE.parent.parent))
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Starting the desktop application: QApplication, the qasync event loop, the main window.

``run`` is what ``explaincheck gui`` calls. With ``screenshot`` it opens what was asked, waits
until every view has rendered, saves the whole window as PNG and exits (tests, docs, README).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import qasync
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication

from explaincheck.core.paths import resources_dir
from explaincheck.gui.main_window import TABS, MainWindow
from explaincheck.gui.support.qt_messages import silence_harmless_messages
from explaincheck.gui.support.settings import APPLICATION, ORGANISATION, Settings
from explaincheck.gui.support.tasks import prepare_worker_threads
from explaincheck.gui.support.theme import apply_theme

SCREENSHOT_SIZE = (1600, 1000)


def create_app() -> QApplication:
    """The one QApplication (created once; HiDPI scaling without rounding)."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    silence_harmless_messages()
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    QCoreApplication.setOrganizationName(ORGANISATION)
    QCoreApplication.setApplicationName(APPLICATION)
    app = QApplication(sys.argv[:1])
    app.setWindowIcon(QIcon(str(resources_dir() / "icons" / "explaincheck.svg")))
    app.setDesktopFileName("io.github.explaincheck")
    return app


async def take_screenshot(
    window: MainWindow, path: str, view: str | None, timeout: float = 600.0
) -> None:
    """Wait for the views, show the requested tab, wait again, save the window."""
    await window.wait_rendered(timeout)
    if view:
        window.show_tab(view)
    if view == "results":
        window.results_view.executions.select_first_failure()
    if view == "teach":
        window.teach_view.reveal_all()
    await asyncio.sleep(0.2)
    await window.wait_rendered(timeout)
    await asyncio.sleep(0.3)
    QApplication.processEvents()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(path, "PNG"):
        raise OSError(f"cannot write the screenshot {path}")


def run(
    env: str | None = None,
    db: str | None = None,
    screenshot: str | None = None,
    view: str | None = None,
    size: tuple[int, int] | None = None,
    policy: str | None = None,
    model: dict[str, str] | None = None,
) -> int:
    """Open the window (and, with ``screenshot``, save it and exit); ``model`` holds the
    constants and goal/unsafe labels to open ``env`` with. Returns the exit status."""
    from explaincheck.core.errors import ExplaincheckError
    from explaincheck.gui.support.compat import problem

    trouble = problem()
    if trouble:
        raise ExplaincheckError(trouble)
    app = create_app()
    settings = Settings()
    apply_theme(app, "light" if screenshot else settings.preferences().theme)
    loop = qasync.QEventLoop(app)
    prepare_worker_threads(loop)
    asyncio.set_event_loop(loop)
    window = MainWindow(settings)
    if screenshot:  # nobody is there to answer the constants dialog: undefined is an error
        window.model.ask_constants = None
    wanted = size or (SCREENSHOT_SIZE if screenshot else None)
    if wanted:
        window.resize(*wanted)
    if view:
        window.show_tab(view)
    if wanted:
        window.show()
    else:
        window.show_first()
    window.pending_policy = policy  # opened when the model's oracle is ready
    if wanted and (window.width(), window.height()) != wanted:
        smallest = window.minimumSizeHint()
        window.close()
        raise ExplaincheckError(
            f"the window cannot be {wanted[0]}x{wanted[1]}: it needs at least "
            f"{smallest.width()}x{smallest.height()}"
        )
    window.start(env=env, db=db, probe_sizes=not screenshot, model=model)
    status = 0
    try:
        if screenshot:
            loop.run_until_complete(take_screenshot(window, screenshot, view))
            if window.errors:
                print(f"explaincheck gui: {window.errors[0]}", file=sys.stderr)
                status = 2
            window.close()
        else:
            loop.run_forever()
    finally:
        window.campaigns.shutdown()  # (also when the window never closed: an error)
        window.llm_policy.controller.shutdown()
        window.model.cancel()
        loop.run_until_complete(_drain(window))
        window.campaigns.wait(5.0)
        window.llm_policy.controller.wait(5.0)
        loop.close()
        asyncio.set_event_loop(None)
    return status


async def _drain(window: MainWindow) -> None:
    """Let cancelled tasks finish (the oracle's child process is killed on cancel)."""
    window.tasks.cancel_all()
    probe = window.model_presenter.size_probe
    if probe is not None:
        probe.cancel()
        await asyncio.wait([probe], timeout=5.0)
    with contextlib.suppress(TimeoutError):
        await window.tasks.wait_idle(timeout=10.0)


__all__ = ["TABS", "create_app", "run", "take_screenshot"]

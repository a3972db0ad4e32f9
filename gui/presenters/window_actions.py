"""The window's actions, toolbar and menus, built in one place.

Each action calls a handler of the window's presenters; enabling them is left to the
presenters that know when an action makes sense (``WindowActions`` names every one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolButton

if TYPE_CHECKING:
    from explaincheck.gui.main_window import MainWindow

TABS = ("graph", "campaign", "results", "report", "teach", "workbench")  # Ctrl+1 … Ctrl+6
Shortcut = QKeySequence | QKeySequence.StandardKey | str | None


def make_action(
    window: QMainWindow, text: str, shortcut: Shortcut, handler: Callable, tip: str = ""
) -> QAction:
    """An action of the window, its shortcut (also said in the tooltip) and its handler."""
    action = QAction(text, window)
    tip = tip or text
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
        tip = f"{tip} ({action.shortcut().toString()})"
    action.setToolTip(tip)
    action.triggered.connect(handler)
    window.addAction(action)
    return action


@dataclass
class WindowActions:
    """The actions other parts enable, disable or extend (File › Ask an LLM…); the window
    holds them as ``commands`` (``actions`` is QWidget's own list)."""

    open: QAction
    build: QAction
    run: QAction
    stop: QAction
    open_results: QAction
    regrade: QAction
    open_policy: QAction
    save_wording: QAction
    report: QAction
    settings: QAction
    fullscreen: QAction
    environments_menu: QMenu


def build_actions(window: MainWindow) -> WindowActions:
    """Create the actions and put them in the toolbar and the File, Campaign and View menus."""

    def act(text: str, shortcut: Shortcut, handler: Callable, tip: str = "") -> QAction:
        return make_action(window, text, shortcut, handler, tip)

    actions = WindowActions(
        open=act(
            "Open model…",
            QKeySequence.StandardKey.Open,
            window.model_view.choose_file,
            "Open a PRISM model",
        ),
        build=act("Build oracle", "Ctrl+B", window.model_view.rebuild),
        run=act("Run ▶", "F5", window.run_campaign, "Run the campaign"),
        stop=act("Stop ■", "Shift+F5", window.stop, "Stop the campaign"),
        open_results=act(
            "Open results…",
            "Ctrl+Shift+O",
            window.results_presenter.choose_database,
            "Open a results database",
        ),
        regrade=act(
            "Re-grade results…",
            None,
            window.regrading.choose,
            "Grade the stored replies again under another satisfy rule (no LLM asked)",
        ),
        open_policy=act(
            "Open policy…",
            None,
            window.policy.choose,
            "Load a policy table (CSV or JSON by state variables) to test questions about it",
        ),
        save_wording=act(
            "Save wording as environment folder…",
            None,
            window.wording.choose_folder,
            "Write the open PRISM model and its generic wording as an environment folder",
        ),
        report=act("Report", None, lambda: window.show_tab("report"), "Show the report (Ctrl+3)"),
        settings=act("Settings…", QKeySequence.StandardKey.Preferences, window.edit_settings),
        fullscreen=act(
            "Full screen", "F11", window.toggle_full_screen, "Full screen (for teaching)"
        ),
        environments_menu=QMenu(window),
    )
    for action in (actions.stop, actions.regrade, actions.open_policy, actions.save_wording):
        action.setEnabled(False)
    if actions.settings.shortcut().isEmpty():
        actions.settings.setShortcut(QKeySequence("Ctrl+,"))
    for i, name in enumerate(TABS):
        act(name.title(), f"Ctrl+{i + 1}", lambda _=False, n=name: window.show_tab(n))
    _build_toolbar(window, actions)
    _build_menus(window, actions, act("Quit", QKeySequence.StandardKey.Quit, window.close))
    return actions


def _build_toolbar(window: MainWindow, actions: WindowActions) -> None:
    toolbar = window.addToolBar("Main")
    toolbar.setObjectName("mainToolbar")
    toolbar.setMovable(False)
    toolbar.addAction(actions.open)
    button = QToolButton(window)
    button.setText("Environments ▾")
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    button.setMenu(actions.environments_menu)
    toolbar.addWidget(button)
    toolbar.addSeparator()
    toolbar.addAction(actions.run)
    toolbar.addAction(actions.stop)
    toolbar.addSeparator()
    toolbar.addAction(actions.open_results)
    toolbar.addAction(actions.report)
    toolbar.addSeparator()
    toolbar.addAction(actions.settings)


def _build_menus(window: MainWindow, actions: WindowActions, quit_action: QAction) -> None:
    menu = window.menuBar()
    file_menu = menu.addMenu("&File")
    for action in (
        actions.open,
        actions.open_results,
        actions.build,
        actions.open_policy,
        actions.save_wording,
    ):
        file_menu.addAction(action)
    file_menu.addSeparator()
    file_menu.addAction(actions.settings)
    file_menu.addAction(quit_action)
    campaign_menu = menu.addMenu("&Campaign")
    for action in (actions.run, actions.stop, actions.regrade):
        campaign_menu.addAction(action)
    view_menu = menu.addMenu("&View")
    campaign_menu.addAction(
        make_action(
            window, "Set up…", None, lambda: window.show_tab("campaign"), "The Campaign tab"
        )
    )
    for dock in (window.model_dock, window.inspector_dock):
        view_menu.addAction(dock.toggleViewAction())
    view_menu.addAction(actions.fullscreen)
    from explaincheck.gui.views.compare_campaigns_dialog import add_results_menu

    add_results_menu(window)

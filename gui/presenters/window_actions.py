"""The window's actions, toolbar and menus, built in one place.

Each action calls a handler the window gives (``ActionHandlers``: its presenters' methods);
enabling them is left to the presenters that know when an action makes sense
(``WindowActions`` names every one). Built from a plain ``QMainWindow``, the handlers and the
docks, so this module never imports the window that imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QToolButton

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


@dataclass
class ActionHandlers:
    """What each action does (the window's presenters' methods, or the window's own)."""

    open_model: Callable[[], object]
    build: Callable[[], object]
    run: Callable[[], object]
    stop: Callable[[], object]
    open_results: Callable[[], object]
    regrade: Callable[[], object]
    open_policy: Callable[[], object]
    save_wording: Callable[[], object]
    show_tab: Callable[[str], object]
    settings: Callable[[], object]
    fullscreen: Callable[[], object]


def build_actions(
    window: QMainWindow, handlers: ActionHandlers, docks: tuple[QDockWidget, ...]
) -> WindowActions:
    """Create the actions and put them in the toolbar and the File, Campaign and View menus
    (``docks``: the side panels View shows and hides)."""
    on = handlers

    def act(text: str, shortcut: Shortcut, handler: Callable, tip: str = "") -> QAction:
        return make_action(window, text, shortcut, handler, tip)

    actions = WindowActions(
        open=act(
            "Open model…",
            QKeySequence.StandardKey.Open,
            on.open_model,
            "Open a PRISM model",
        ),
        build=act("Build oracle", "Ctrl+B", on.build),
        run=act("Run ▶", "F5", on.run, "Run the campaign"),
        stop=act("Stop ■", "Shift+F5", on.stop, "Stop the campaign"),
        open_results=act(
            "Open results…",
            "Ctrl+Shift+O",
            on.open_results,
            "Open a results database",
        ),
        regrade=act(
            "Re-grade results…",
            None,
            on.regrade,
            "Grade the stored replies again under another satisfy rule (no LLM asked)",
        ),
        open_policy=act(
            "Open policy…",
            None,
            on.open_policy,
            "Load a policy table (CSV or JSON by state variables) to test questions about it",
        ),
        save_wording=act(
            "Save wording as environment folder…",
            None,
            on.save_wording,
            "Write the open PRISM model and its generic wording as an environment folder",
        ),
        report=act("Report", None, lambda: on.show_tab("report"), "Show the report (Ctrl+3)"),
        settings=act("Settings…", QKeySequence.StandardKey.Preferences, on.settings),
        fullscreen=act("Full screen", "F11", on.fullscreen, "Full screen (for teaching)"),
        environments_menu=QMenu(window),
    )
    for action in (actions.stop, actions.regrade, actions.open_policy, actions.save_wording):
        action.setEnabled(False)
    if actions.settings.shortcut().isEmpty():
        actions.settings.setShortcut(QKeySequence("Ctrl+,"))
    for i, name in enumerate(TABS):
        act(name.title(), f"Ctrl+{i + 1}", lambda _=False, n=name: on.show_tab(n))
    _build_toolbar(window, actions)
    quit_action = act("Quit", QKeySequence.StandardKey.Quit, window.close)
    _build_menus(window, actions, quit_action, docks, on.show_tab)
    return actions


def _build_toolbar(window: QMainWindow, actions: WindowActions) -> None:
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


def _build_menus(
    window: QMainWindow,
    actions: WindowActions,
    quit_action: QAction,
    docks: tuple[QDockWidget, ...],
    show_tab: Callable[[str], object],
) -> None:
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
        make_action(window, "Set up…", None, lambda: show_tab("campaign"), "The Campaign tab")
    )
    for dock in docks:
        view_menu.addAction(dock.toggleViewAction())
    view_menu.addAction(actions.fullscreen)

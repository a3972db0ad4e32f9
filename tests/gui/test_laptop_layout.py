"""The window on a 1366x768 laptop with a panel on top (about 740 pixels of height) and on a
1280x720 screen with a title bar and a panel (about 1280x670, issue 39): every tab fits,
``--size`` gives exactly the size asked, and the Results case detail stays in view."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for
from test_app import run_cli

LAPTOP = (1366, 740)  # 1366x768 less a desktop panel
SMALL = (1280, 670)  # 1280x720 less a title bar and a desktop panel


@pytest.fixture(scope="module")
def laptop_db(tmp_path_factory):
    """A small random + oracle campaign with a factors category (by the CLI in a process of
    its own: the session's Qt event loop counts as running here)."""
    db = tmp_path_factory.mktemp("laptop") / "results.sqlite"
    run = "run --env frozen_lake --llm random --llm oracle --budget 2 --selection both"
    categories = "satisfy,bottleneck,best_action,factors"
    result = run_cli(*run.split(), "--categories", categories, "--db", str(db))
    assert result.returncode == 0, result.stderr
    return db


def _fits(window) -> tuple[int, int]:
    hint = window.minimumSizeHint()
    return hint.width(), hint.height()


def _open_with_results(qtbot, window, db):
    open_env(qtbot, window, "frozen_lake")
    window.open_database(str(db))
    wait_for(qtbot, lambda: len(window.results.rows) > 0 and window.tasks.idle, 60)


def test_every_tab_fits_a_laptop_screen(laptop_db, qtbot, window):
    _open_with_results(qtbot, window, laptop_db)
    executions = window.results_view.executions
    seen = {}
    for tab in ("graph", "campaign", "results", "report", "teach"):
        window.show_tab(tab)
        if tab == "results":
            assert executions.select_first_failure()
        if tab == "report":
            wait_for(qtbot, lambda: window.report_view.ready, 60)
        if tab == "teach":
            window.teach_view.reveal_all()
        qtbot.wait(50)
        seen[tab] = _fits(window)
    window.show_tab("workbench")  # each of its pages: editor, simulator, Bellman, sweep
    pages = window.workbench.pages
    for index in range(pages.count()):
        pages.setCurrentIndex(index)
        qtbot.wait(50)
        seen[f"workbench, {pages.tabText(index)}"] = _fits(window)
    # Results with a factors case (its factor panel open), and the side-by-side comparison
    window.show_tab("results")
    executions.set_filter("category", "factors")
    executions.select_row(0)
    wait_for(qtbot, lambda: window.results_view.factor_panel.picture is not None, 60)
    seen["results, factors case"] = _fits(window)
    window.results_view.setCurrentWidget(window.results_view.compare)
    window.results_view.compare.table.selectRow(0)
    qtbot.wait(50)
    seen["side by side"] = _fits(window)
    # Teach on a factors case, with its panel and large lecture text
    window.results_view.setCurrentWidget(executions)
    teach = window.teach_view
    window.show_tab("teach")
    teach.category.setCurrentIndex(teach.category.findData("factors"))
    wait_for(qtbot, lambda: teach.lesson is not None and teach.lesson.case.category == "factors")
    wait_for(qtbot, lambda: teach.ready, 60)
    teach.reveal_all()
    teach.scale_text(1.5)
    qtbot.wait(50)
    seen["teach, factors case"] = _fits(window)
    too_big = {k: v for k, v in seen.items() if v[0] > SMALL[0] or v[1] > SMALL[1]}
    assert not too_big, too_big
    # and the window really takes either size, with the inspector and status bar inside it
    for size in (LAPTOP, SMALL):
        window.resize(*size)
        qtbot.wait(50)
        assert (window.width(), window.height()) == size
        inspector = window.inspector_dock.geometry()
        assert inspector.right() < window.width() and window.inspector_dock.width() >= 300
        assert window.statusBar().geometry().bottom() < window.height()


@pytest.mark.parametrize("size", [(1366, 768), (1280, 720)], ids=["1366", "1280"])
def test_screenshot_has_exactly_the_size_asked(tmp_path, size):
    from PySide6.QtGui import QImage

    png = tmp_path / "laptop.png"
    settings = {"EXPLAINCHECK_SETTINGS": str(tmp_path / "settings.ini")}
    result = run_cli(
        "gui",
        "--env",
        "frozen_lake",
        "--view",
        "results",
        "--screenshot",
        str(png),
        "--size",
        f"{size[0]}x{size[1]}",
        env_extra=settings,
    )
    assert result.returncode == 0, result.stderr
    image = QImage(str(png))
    assert (image.width(), image.height()) == size
    assert "propagateSizeHints" not in result.stderr
    # a size below the window's minimum (both docks and the tab in front) is said, not
    # silently enlarged
    small = tmp_path / "small.png"
    result = run_cli(
        "gui", "--env", "frozen_lake", "--screenshot", str(small), "--size", "700x400",
        env_extra=settings,
    )  # fmt: skip
    assert result.returncode == 2
    assert "cannot be 700x400" in result.stderr and "Traceback" not in result.stderr
    assert not small.exists()


def test_screenshot_of_a_model_with_an_undefined_constant_fails_fast(tmp_path):
    from pathlib import Path

    gambler = Path(__file__).parents[1] / "models" / "gambler.prism"
    png = tmp_path / "gambler.png"
    settings = {"EXPLAINCHECK_SETTINGS": str(tmp_path / "settings.ini")}
    result = run_cli("gui", "--env", str(gambler), "--screenshot", str(png), env_extra=settings)
    assert result.returncode == 2
    assert "undefined constants N: give their values with --const N=..." in result.stderr
    assert "Traceback" not in result.stderr
    # given with --const, the same model renders
    result = run_cli(
        "gui", "--env", str(gambler), "--const", "N=3", "--screenshot", str(png),
        env_extra=settings,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_case_detail_opens_in_view_is_remembered_and_never_collapses(
    laptop_db, qtbot, qloop, tmp_path
):
    from explaincheck.gui.main_window import MainWindow
    from explaincheck.gui.support.settings import Settings
    from explaincheck.gui.views.case_detail import DETAIL_MIN_HEIGHT

    db = laptop_db
    path = str(tmp_path / "settings.ini")

    def opened() -> MainWindow:
        win = MainWindow(Settings(path))
        qtbot.addWidget(win)
        win.resize(*LAPTOP)
        win.show()
        win.show_tab("results")
        win.open_database(str(db))
        wait_for(qtbot, lambda: len(win.results.rows) > 0 and win.tasks.idle, 60)
        win.results_view.executions.select_row(0)
        qtbot.wait(50)
        return win

    first = opened()
    panel = first.results_view.executions
    table, _groups, detail = panel.split_sizes()
    assert detail >= DETAIL_MIN_HEIGHT and detail > 2 * table  # the case has the room
    assert panel.detail.question.height() >= 100 and panel.detail.reply.isVisible()
    # dragged as far down as it goes, the detail keeps its minimum
    panel.split.moveSplitter(panel.split.height(), 2)
    assert panel.split_sizes()[2] >= DETAIL_MIN_HEIGHT
    panel.split.moveSplitter(150, 2)  # the user's strip of the list: remembered
    remembered = panel.split_sizes()
    assert remembered[0] == 150
    first.close()
    second = opened()
    assert second.results_view.executions.split_sizes() == remembered
    second.close()
    # a saved zero (an older version collapsed it) is not restored
    Settings(path).save_split_sizes("results", [700, 0, 0])
    third = opened()
    assert third.results_view.executions.split_sizes()[2] >= DETAIL_MIN_HEIGHT
    third.close()


def test_grouping_repeats_keeps_the_case_detail(laptop_db, qtbot, window):
    from explaincheck.gui.views.case_detail import DETAIL_MIN_HEIGHT

    window.show_tab("results")
    window.open_database(str(laptop_db))
    wait_for(qtbot, lambda: len(window.results.rows) > 0 and window.tasks.idle, 60)
    panel = window.results_view.executions
    before = panel.split_sizes()
    panel.group_button.setChecked(True)
    table, groups, detail = panel.split_sizes()
    assert table == 0 and groups > 0 and detail == before[2] >= DETAIL_MIN_HEIGHT
    panel.group_button.setChecked(False)
    assert panel.split_sizes() == before


def test_a_figure_wider_than_its_panel_keeps_its_labels_above_the_scroll_bar(
    laptop_db, qtbot, window
):
    """At 1280 pixels Table 1's heatmap is wider than its panel: it scrolls sideways, and the
    panel is as tall as the figure plus the scroll bar, so the bar never covers the category
    labels under the heatmap (it did: "Sat. Bttl. Best" were cut in half)."""
    _open_with_results(qtbot, window, laptop_db)
    window.resize(1280, 670)
    window.show_tab("report")
    wait_for(qtbot, lambda: window.report_view.ready, 60)
    qtbot.wait(100)
    for panel in (window.report_view.heatmap, window.report_view.difficulty):
        if panel.canvas is None:
            continue
        bar = panel.holder.horizontalScrollBar()
        if panel.canvas.width() > panel.holder.width():
            assert panel.holder.height() == panel.canvas.height() + bar.sizeHint().height()
        else:
            assert panel.holder.height() == panel.canvas.height()

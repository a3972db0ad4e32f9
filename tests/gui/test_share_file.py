"""File › Share as one file… writes the open results as one HTML file, and the Results tab's
case detail offers the case's link into it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from gui_helpers import wait_for

from explaincheck.core.cli.main import main
from explaincheck.core.share.bundle import case_id
from explaincheck.gui.presenters.share_file import SHARE_TEXT


def test_share_action_writes_the_file_and_the_detail_offers_the_case_link(qtbot, window, tmp_path):
    db = tmp_path / "results.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "random", "--budget", "2", "--db", str(db)]
    with ThreadPoolExecutor(1) as pool:  # the command runs its own event loop, not Qt's
        assert pool.submit(main, [*args, "--categories", "satisfy,best_action"]).result() == 0
    file_menu = window.menuBar().actions()[0].menu()
    texts = [a.text() for a in file_menu.actions()]
    assert texts.index(SHARE_TEXT) == texts.index("Open results…") + 1
    task = window.open_database(str(db))
    wait_for(qtbot, task.done, 30)
    detail = window.results_view.executions.detail
    row = window.results.rows[0]
    detail.show_row(row)
    link = detail.case_link
    assert link.isVisibleTo(detail)
    fragment = case_id(row["model_hash"], row["case_key"])
    assert link.link == f"{(tmp_path / 'results.html').resolve().as_uri()}#case={fragment}"
    # results.html is not written yet: the row says so and offers to write it (issue 50)
    assert not (tmp_path / "results.html").exists()
    assert link.label.text() == f"Case link: results.html#case={fragment} — not written yet"
    assert link.write.isVisibleTo(detail) and not link.copy.isVisibleTo(detail)
    task = link.write_file()
    wait_for(qtbot, task.done, 60)
    assert (tmp_path / "results.html").is_file()
    assert link.copy.isVisibleTo(detail) and not link.write.isVisibleTo(detail)
    assert link.label.text() == f"Case link: {link.link}"
    out = tmp_path / "shared.html"
    task = window.tasks.start(window.share.write(str(db), str(out)), "share")  # the dialog's OK
    wait_for(qtbot, task.done, 60)
    assert out.is_file() and "Content-Security-Policy" in out.read_text()
    assert link.link.endswith(f"shared.html#case={fragment}")
    link.copy_link()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == link.link
    detail.show_row(None)
    assert not link.isVisibleTo(detail)

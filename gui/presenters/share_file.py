"""File › Share as one file…, and the case link in the Results tab's case detail.

Why here and not in a view: writing the share file is ``core.share.page.write_share`` on a
worker thread; the window only asks where, says how big, and offers each case's link
(``<share file>#case=<id>``, the file a share of the open results would be written to).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QMainWindow,
    QMenu,
    QPushButton,
    QWidget,
)

from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.presenters.notices import Notices
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views.elided_label import ElidedLabel

if TYPE_CHECKING:
    from explaincheck.gui.views.case_detail import CaseDetail

SHARE_TEXT = "Share as one file…"
SHARE_TIP = (
    "Write the open results as one HTML file that opens anywhere without a server"
    " and makes no network request"
)


def default_share_path(db_path: str) -> str:
    return str(Path(db_path).with_suffix(".html"))


def case_link(share_path: str, row: dict[str, Any]) -> str | None:
    """``file:///…/results.html#case=<id>`` of a stored row, or None without its identity."""
    from explaincheck.core.share.bundle import case_id

    if not row.get("model_hash") or row.get("case_key") is None:
        return None
    fragment = case_id(str(row["model_hash"]), str(row["case_key"]))
    return f"{Path(share_path).resolve().as_uri()}#case={fragment}"


class CaseLinkRow(QWidget):
    """ "Case link: …#case=<id>" with a Copy button, under the case detail's header; while the
    share file it names is not written yet, the row says so and offers to write it (issue 50:
    the link named a ``.html`` that did not exist)."""

    def __init__(self, share: ShareFile, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.share = share
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # elided (whole in its tooltip; Copy copies it whole): a long path must not widen the
        # window past a 1280-pixel screen
        self.label = ElidedLabel()
        self.label.setTextFormat(self.label.textFormat().PlainText)
        self.copy = QPushButton("Copy case link")
        self.copy.setToolTip("Opens this case in the share file (File › Share as one file…)")
        self.copy.clicked.connect(self.copy_link)
        self.write = QPushButton("Write the share file")
        self.write.setToolTip(
            "Write the open results as one HTML file (File › Share as one file…): the link"
            " opens this case in it"
        )
        self.write.clicked.connect(self.write_file)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.write)
        layout.addWidget(self.copy)
        self.link: str | None = None
        self.target: Path | None = None  # the share file the link names
        self.show_row(None)

    def show_row(self, row: dict[str, Any] | None) -> None:
        db = self.share.results.db_path
        self.target = Path(self.share.path_for(db)) if db else None
        self.link = case_link(str(self.target), row) if row and self.target else None
        written = self.target is not None and self.target.is_file()
        if self.link and not written and self.target is not None:
            fragment = self.link.rsplit("#", 1)[1]
            self.label.setText(f"Case link: {self.target.name}#{fragment} — not written yet")
        else:
            self.label.setText(f"Case link: {self.link}" if self.link else "")
        self.write.setVisible(bool(self.link) and not written)
        self.copy.setVisible(bool(self.link) and written)
        self.setVisible(self.link is not None)

    def write_file(self) -> asyncio.Task | None:
        """Write the share file the link names (then the row offers to copy the link)."""
        db = self.share.results.db_path
        if not db or self.target is None:
            return None
        self.write.setEnabled(False)
        task = self.share.tasks.start(self.share.write(db, str(self.target)), "share")
        task.add_done_callback(lambda _task: self.write.setEnabled(True))
        return task

    def copy_link(self) -> None:
        if self.link:
            QGuiApplication.clipboard().setText(self.link)


class ShareFile:
    """Given the results it shares, the case detail whose link it keeps current, and where
    it speaks."""

    def __init__(
        self,
        results: ResultsData,
        detail: CaseDetail,
        tasks: Tasks,
        notices: Notices,
        parent: QWidget,
    ) -> None:
        self.results, self.detail, self.tasks = results, detail, tasks
        self.notices, self.parent = notices, parent
        self.written: dict[str, str] = {}  # results file -> the share file last written of it
        self.action: QAction | None = None

    def path_for(self, db_path: str) -> str:
        return self.written.get(db_path) or default_share_path(db_path)

    def choose(self) -> None:
        db = self.results.db_path
        if not db:
            self.notices.say("Open a results file first", 8000)
            return
        path, _ = QFileDialog.getSaveFileName(
            self.parent, SHARE_TEXT, self.path_for(db), "HTML (*.html);;All files (*)"
        )
        if path:
            self.tasks.start(self.write(db, path), "share")

    async def write(self, db: str, path: str) -> None:
        from explaincheck.core.share.page import write_share

        try:
            target, size = await in_thread(write_share, db, path)
        except Exception as error:  # one line in the status bar, never a crash
            self.notices.say(f"Cannot share {db}: {error}", 15000)
            return
        self.written[db] = str(target)
        self.notices.say(f"Wrote {target} ({size / 1e6:.2f} MB)", 10000)
        detail = self.detail
        if detail.case_link is not None:
            detail.case_link.show_row(detail.row)


def attach_share(window: QMainWindow, share: ShareFile, open_results: QAction) -> ShareFile:
    """File › Share as one file… (after ``open_results`` in the window's first menu) and the
    case link of the Results tab's case detail."""
    from explaincheck.gui.presenters.window_actions import make_action

    action = make_action(window, SHARE_TEXT, None, share.choose, SHARE_TIP)
    share.action = action
    file_menu = cast(QMenu, window.menuBar().actions()[0].menu())
    actions = file_menu.actions()
    after = actions.index(open_results) + 1
    if after < len(actions):
        file_menu.insertAction(actions[after], action)
    else:
        file_menu.addAction(action)
    detail = share.detail
    detail.case_link = CaseLinkRow(share, detail)
    detail.add_link_row(detail.case_link)
    detail.row_shown.append(detail.case_link.show_row)
    return share

"""File › Share as one file…, and the case link in the Results tab's case detail.

Why here and not in a view: writing the share file is ``core.share.page.write_share`` on a
worker thread; the window only asks where, says how big, and offers each case's link
(``<share file>#case=<id>``, the file a share of the open results would be written to).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QMainWindow,
    QMenu,
    QPushButton,
    QVBoxLayout,
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
    """ "Case link: …#case=<id>" with a Copy button, under the case detail's header."""

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
        layout.addWidget(self.label, 1)
        layout.addWidget(self.copy)
        self.link: str | None = None
        self.show_row(None)

    def show_row(self, row: dict[str, Any] | None) -> None:
        db = self.share.results.db_path
        self.link = case_link(self.share.path_for(db), row) if row and db else None
        self.label.setText(f"Case link: {self.link}" if self.link else "")
        self.setVisible(self.link is not None)

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
    cast(QVBoxLayout, detail.layout()).insertWidget(2, detail.case_link)
    detail.row_shown.append(detail.case_link.show_row)
    return share

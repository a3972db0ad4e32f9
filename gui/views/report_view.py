"""The Report tab: Table 1 heatmap, category difficulty and RQ1/RQ2, with export buttons.

The view computes nothing: ``core.workspace.presentation.report.ReportWorkspace`` builds the
report of the shown executions on a worker thread (its figures are pyplot-free ``Figure``
objects, safe to build off the GUI thread) and exports the whole report; the view draws what
its ``ready`` event hands over with matplotlib's Qt canvas.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.workspace.presentation.report import (
    COMPUTING,
    FIGURES,
    NO_RESULTS,
    TABLES,
    ReportWorkspace,
    campaign_free_text,
    export_summary,
)
from explaincheck.gui.adapters.frame_model import FrameModel
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views.flow_layout import FlowLayout
from explaincheck.gui.views.policy_report import PolicyLossBox

__all__ = ["FIGURES", "TABLES", "ReportView", "export_summary"]


SMALLEST_SCALE = 0.7  # a figure is shown at no less than 70 % of its drawn size


class TableBox(QFrame):
    """A report table's frame with its title wrapped above it: a group box's title sets its
    minimum width, and two long section titles side by side made the report scroll sideways
    at 1366 px (issue 39)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.inner = QVBoxLayout(self)
        self.heading = plain_label(title)
        self.heading.setWordWrap(True)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.inner.addWidget(self.heading)

    def setTitle(self, title: str) -> None:
        self.heading.setText(title)

    def title(self) -> str:
        return self.heading.text()


class FigurePanel(QGroupBox):
    """A titled matplotlib canvas drawn to the width there is: scaled as a whole (its texts
    keep their places) down to ``SMALLEST_SCALE``; a figure still wider scrolls sideways in its
    own panel, so the report around it and every title stay in view (issue 39)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self.layout_ = QVBoxLayout(self)
        self.canvas: FigureCanvasQTAgg | None = None
        self.figure = None
        self.placeholder = plain_label(NO_RESULTS)  # or "Computing…" while it is computed
        self.layout_.addWidget(self.placeholder)
        self.holder = QScrollArea(self)  # sideways only, and only for a figure that needs it
        self.holder.setFrameShape(QFrame.Shape.NoFrame)
        self.holder.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.holder.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.holder.hide()
        self.layout_.addWidget(self.holder)

    def set_placeholder(self, text: str) -> None:
        """What the panel says while it shows no figure."""
        self.placeholder.setText(text)

    def _room(self) -> int:
        """The width a figure may take: the scrolled report's viewport less what lies beside
        the figure in the page (the page's and the panel's margins and frame), measured on the
        placeholder or the figure shown, whichever is laid out, and the report's scroll bar that
        the figures bring (a guessed 30 px left 6 to 14 px to scroll sideways at 1366 and
        1280, issue 50); 0 outside a scrolled report."""
        scroll = self.parentWidget()
        while scroll is not None and not isinstance(scroll, QScrollArea):
            scroll = scroll.parentWidget()
        if scroll is None:
            return 0
        shown = self.holder.viewport() if self.holder.isVisible() else self.placeholder
        page = scroll.widget()
        if shown.isVisible() and shown.width() > 0 and page is not None:
            beside = page.width() - shown.width()
        else:
            beside = 30  # not laid out yet
        bar = scroll.verticalScrollBar()
        if not bar.isVisible():  # the figures will make the report scroll: its bar's width
            beside += bar.sizeHint().width()
        return max(scroll.viewport().width() - beside, 0)

    def set_figure(self, figure: Any) -> None:
        if self.canvas is not None:
            self.holder.takeWidget()
            self.canvas.deleteLater()
            self.canvas = None
        self.figure = figure
        room = self._room()  # measured on what is shown now, laid out
        self.placeholder.setVisible(figure is None)
        self.holder.setVisible(figure is not None)
        if figure is None:
            return
        width, height = figure.get_size_inches()
        dpi = figure.get_dpi()
        if room and width * dpi > room:
            figure.set_dpi(max(dpi * room / (width * dpi), dpi * SMALLEST_SCALE))
            dpi = figure.get_dpi()
        self.canvas = FigureCanvasQTAgg(figure)
        drawn = (int(width * dpi), int(min(height * dpi, 900)))
        # never narrower than drawn: squeezed, Table 1's cell texts run into each other
        self.canvas.setFixedSize(*drawn)
        self.holder.setWidget(self.canvas)
        self._fit_height()
        self.canvas.draw_idle()

    def _fit_height(self) -> None:
        """The figure's height, plus the sideways scroll bar's whenever the figure is wider
        than the panel shows (else the bar covers the figure's bottom row of labels)."""
        if self.canvas is None:
            return
        wider = self.canvas.width() > self.holder.width()
        bar = self.holder.horizontalScrollBar().sizeHint().height() if wider else 0
        self.holder.setFixedHeight(self.canvas.height() + bar)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()


class ReportView(QWidget):
    """Recomputes when results change (debounced) and the tab is visible."""

    def __init__(self, results: ResultsData, tasks: Tasks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results = results
        self.tasks = tasks
        self.workspace = ReportWorkspace(offload=in_thread)
        self.workspace.computing.connect(self._computing)
        self.workspace.ready.connect(self._show)
        self.workspace.failed.connect(lambda text: self.summary.setText(text))
        self._stale = True
        self.ready = False

        # the summary on a line of its own, the option and the exports wrapping under it: one
        # row of both set the window's minimum beyond a 1280-px screen (issue 39)
        self.summary = plain_label("")
        self.summary.setWordWrap(True)
        bar = FlowLayout(spacing=6)
        self.exclude_reading = QCheckBox("Leave reading cases out")
        self.exclude_reading.setToolTip(
            "Score without the cases answered by reading: a pair or subset holding a failure"
            " state that the words give away (report --exclude-reading)"
        )
        self.exclude_reading.toggled.connect(self._exclude_reading)
        bar.add(self.exclude_reading)
        self.export_buttons: dict[str, QPushButton] = {}
        for kind, text in (("png", "PNG"), ("svg", "SVG"), ("csv", "CSV"), ("html", "HTML")):
            button = QPushButton(f"Export {text}…")
            button.clicked.connect(lambda _=False, k=kind: self.choose_export(k))
            button.setEnabled(False)
            self.export_buttons[kind] = button
            bar.add(button)

        body = QWidget()
        outer = QVBoxLayout(body)
        outer.setContentsMargins(0, 0, 0, 0)
        # a file without a campaign (a self-check, an LLM's policy) says so here, and its box
        # comes first (issue 50: the self-check was 4,000 px down, under an empty Table 1)
        self.campaign_free = plain_label("")
        self.campaign_free.setWordWrap(True)
        self.campaign_free.hide()
        outer.addWidget(self.campaign_free)
        self.top = QVBoxLayout()
        outer.addLayout(self.top)
        grid = QGridLayout()
        outer.addLayout(grid)
        outer.addStretch(1)
        self.grid = grid
        self.heatmap = FigurePanel("Table 1 — score per category (prioritised/random)")
        self.difficulty = FigurePanel("Category difficulty (hardest first)")
        self.tables: dict[str, tuple[TableBox, QTableView, FrameModel, QLabel]] = {}
        grid.addWidget(self.heatmap, 0, 0, 1, 2)
        # row 1: the policies' and self-checks' box when the file holds some beside a campaign
        grid.addWidget(self.difficulty, 2, 0, 1, 2)
        places = ((3, 0), (3, 1), (4, 0), (4, 1), (5, 0, 1, 2), (6, 0), (6, 1))
        for key, place in zip(TABLES, places, strict=True):
            grid.addWidget(self._table_box(key), *place)
        self.policy_loss = PolicyLossBox(body)  # filled by the window (policy_report.py)
        self.policy_place = ""
        self._place_policy_box("bottom")
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        self.scroll_area = scroll

        # what the last export wrote, under the summary (which stays)
        self.export_line = plain_label("")
        self.export_line.setWordWrap(True)
        self.export_line.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addLayout(bar)
        layout.addWidget(self.export_line)
        layout.addWidget(scroll, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(800)
        self._timer.timeout.connect(self.refresh_if_visible)
        results.reset.connect(self.mark_stale)
        results.rows_added.connect(lambda *_: self.mark_stale())

    def _table_box(self, key: str) -> TableBox:
        box = TableBox(key)
        inner = box.inner
        view = QTableView(box)
        model = FrameModel()
        view.setModel(model)
        view.verticalHeader().setVisible(False)
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        view.setMinimumHeight(90)
        inner.addWidget(view)
        note = plain_label("")
        note.setWordWrap(True)
        inner.addWidget(note)
        self.tables[key] = (box, view, model, note)
        box.hide()  # until a report has its section
        return box

    def _place_policy_box(self, place: str) -> None:
        """The policies' and self-checks' box: ``top`` (a file without a campaign), ``second``
        (right under Table 1: the file holds policy or self-check rows too) or ``bottom``."""
        if place == self.policy_place:
            return
        box = self.policy_loss
        self.top.removeWidget(box)
        self.grid.removeWidget(box)
        if place == "top":
            self.top.addWidget(box)
        else:
            self.grid.addWidget(box, 1 if place == "second" else 7, 0, 1, 2)
        self.policy_place = place

    # -- refresh ---------------------------------------------------------------------------
    def mark_stale(self) -> None:
        self._stale = True
        self.ready = False
        if self.results.rows and self.report is None:  # a report will come: not "no results"
            self._figures_say(COMPUTING)
        self._timer.start()

    def _figures_say(self, text: str) -> None:
        for panel in (self.heatmap, self.difficulty):
            panel.set_placeholder(text)

    def _computing(self) -> None:
        self.summary.setText("Computing the report…")
        self._figures_say(COMPUTING)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._stale:
            self._timer.start(0)

    def refresh_if_visible(self) -> None:
        if self.isVisible() and self._stale:
            self.refresh()

    def refresh(self) -> Any:
        self._stale = False
        rows, db_path = list(self.results.rows), self.results.db_path
        return self.tasks.start(self.workspace.refresh(rows, db_path), "report")

    def _exclude_reading(self, on: bool) -> None:
        self.workspace.exclude_reading = on
        self.mark_stale()

    @property
    def report(self) -> Any:
        """The report shown (``ReportWorkspace.report``)."""
        return self.workspace.report

    def _show(self, report: Any) -> None:
        for button in self.export_buttons.values():
            button.setEnabled(report is not None)
        held = self.workspace.held
        free = report is not None and held.campaign_free
        self.campaign_free.setText(campaign_free_text(held) if free else "")
        self.campaign_free.setVisible(free)
        self.heatmap.setVisible(not free)
        self.difficulty.setVisible(not free)
        besides = held.selfcheck + held.policy > 0
        self._place_policy_box("top" if free else "second" if besides else "bottom")
        if report is None:
            self.summary.setText(NO_RESULTS)
            self._figures_say(NO_RESULTS)
            self.heatmap.set_figure(None)
            self.difficulty.set_figure(None)
            for box, _view, model, note in self.tables.values():
                model.set_frame(None)
                note.setText("")
                box.hide()
            self.ready = True
            return
        self.summary.setText(report.summary)
        self.heatmap.set_figure(report.figures.get("table1_heatmap"))
        self.difficulty.set_figure(report.figures.get("difficulty"))
        sections = {s.key: s for s in report.sections}
        for key, (box, view, model, note) in self.tables.items():
            section = sections.get(key)
            if section is None:
                box.hide()
                continue
            box.show()
            box.setTitle(section.title)
            model.set_frame(section.table)
            note.setText(section.note)
            rows = model.rowCount()
            view.setMinimumHeight(min(400, 30 + 24 * max(1, rows)))
        self.ready = True

    # -- export ----------------------------------------------------------------------------
    def choose_export(self, kind: str) -> None:
        folder = QFileDialog.getExistingDirectory(self, f"Export {kind.upper()} to folder")
        if folder:
            self.tasks.start(self.export(kind, folder), "export report")

    async def export(self, kind: str, folder: str) -> list[Path]:
        """Write the whole report (as ``explaincheck report`` makes it) as ``kind`` (png, svg,
        csv, html) into ``folder``."""
        if self.report is None:
            return []
        self.export_line.setText("Computing the whole report for the export…")
        self.export_line.show()
        rows, db_path = list(self.results.rows), self.results.db_path
        written = await self.workspace.export(rows, db_path, kind, folder)
        self.export_line.setText(export_summary(written, folder))
        self.export_line.show()
        return written

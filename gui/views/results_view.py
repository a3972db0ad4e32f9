"""The Results tab: executions with filters and search, one case in full, two LLMs compared.

The state is the Qt-free ``ResultsWorkspace`` (``core/workspace/presentation/results/``): the
rows, the filters, the grouped repeats and the chosen case. This view shows it and forwards the
user's input: a filter or the search sets the workspace's filters, a selected row chooses the
case; the chosen case is shown in full and the window highlights its states on the graph
(``case_selected``).
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.results.filters import (
    FILTERS,
    NOT_PASSED,
    ResultsFilters,
    count_text,
)
from explaincheck.core.workspace.presentation.results.rows import (
    Row,
    StoredExecution,
    environment_name,
    same_model,
)
from explaincheck.gui.adapters.repeat_groups import RepeatGroupsModel
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.adapters.results_model import COLUMNS, ResultsFilter, ResultsTableModel
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.case_detail import DETAIL_MIN_HEIGHT, CaseDetail
from explaincheck.gui.views.compare_panel import ComparePanel
from explaincheck.gui.views.factor_panel import FactorPanel
from explaincheck.gui.views.flaky_filter import add_flaky_button
from explaincheck.gui.views.flow_layout import FlowLayout

TABLE_MIN_HEIGHT = 90  # a header and three rows
ROW_HEIGHT = 22
CASE_TABLE_ROWS = 3  # rows of the list kept above an open case (the chosen one among them)
CASE_TABLE_HEIGHT = 24 + CASE_TABLE_ROWS * ROW_HEIGHT + 6
# what the table's columns are, by key, and their widths; a column whose value is the same in
# every row (one environment, one selection, no repeats) is left out: the Reason gets the room
HIDEABLE = ("environment", "selection", "repeat")  # left out when one value fills the column
COLUMN_WIDTHS = {
    "environment": 90,
    "llm": 96,
    "category": 122,
    "selection": 78,
    "states": 88,
    "delta": 44,
    "repeat": 36,
    "verdict": 58,
}


class ExecutionsPanel(QWidget):
    """Filter bar, table and case detail."""

    case_selected = Signal(object)  # the chosen StoredExecution
    case_open_changed = Signal(bool)  # a case opened (True) or was closed (False)

    def __init__(self, results: ResultsData, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results = results
        self.workspace = results.workspace
        self.oracle: OracleResult | None = None
        self.environment: Environment | None = None
        self.model = ResultsTableModel(results)
        self.proxy = ResultsFilter(results)
        self.proxy.setSourceModel(self.model)
        bar = self._build_filter_bars()
        self._build_table()
        self._build_group_table()
        split = self._build_split()
        self._build_layout(bar, split)
        self._connect_signals()
        self._update_count()

    # -- building the panel (called once, in this order, by ``__init__``) -------------------
    def _build_filter_bars(self) -> FlowLayout:
        """One bar that wraps onto as many lines as the width needs (a 1280-px screen leaves
        about 650 px between the docks): the filters, each with its title, the buttons, the
        search and the count, which is never cut (issue 50: "9 of 36 sh…")."""
        bar = FlowLayout(spacing=6)
        self.filters: dict[str, QComboBox] = {}
        for key, title in FILTERS:
            pair = QWidget(self)
            row_layout = QHBoxLayout(pair)
            row_layout.setContentsMargins(0, 0, 0, 0)
            row_layout.addWidget(QLabel(f"{title}:"))
            box = QComboBox(self)
            box.addItem("all", "")
            box.setMinimumContentsLength(8)
            box.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            box.currentIndexChanged.connect(lambda _=0, k=key, b=box: self._filter_changed(k, b))
            self.filters[key] = box
            row_layout.addWidget(box)
            bar.add(pair)
        self.failures = QToolButton(self)
        self.failures.setText("Failures only")
        self.failures.setCheckable(True)
        self.failures.setToolTip("Show only failed and invalid answers (Ctrl+Shift+F)")
        self.failures.setShortcut("Ctrl+Shift+F")
        self.failures.toggled.connect(self._failures_toggled)
        bar.add(self.failures)
        self.group_button = QToolButton(self)
        self.group_button.setText("Group repeats")
        self.group_button.setCheckable(True)
        self.group_button.setToolTip(
            "One row per case: its k answers, whether they agree and how many passed"
        )
        self.group_button.toggled.connect(self._group_toggled)
        bar.add(self.group_button)
        self.flaky_button = add_flaky_button(self, bar)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search…")
        self.search.setMinimumWidth(self.search.fontMetrics().horizontalAdvance("Search…") + 14)
        self.search.setToolTip("Search the prompts, replies and reasons of the executions")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(200)
        self._search_timer.timeout.connect(self._search_changed)
        self.search.textChanged.connect(lambda _: self._search_timer.start())
        bar.add(self.search, stretch=True)
        # whole, and as wide as its longest text for the rows there are: a count that grows
        # while rows stream in does not move the controls from line to line
        self.count = QLabel(self)
        bar.add(self.count)
        return bar

    def _build_table(self) -> None:
        """One row per answer, sortable."""
        self.table = QTableView(self)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, (_title, key) in enumerate(COLUMNS):
            if key in COLUMN_WIDTHS:
                self.table.setColumnWidth(column, COLUMN_WIDTHS[key])
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.clicked.connect(self._clicked)
        # the list shrinks to its strip when a case opens: the chosen row stays in view
        self.table.verticalScrollBar().rangeChanged.connect(lambda *_: self._chosen_in_view())

    def _build_group_table(self) -> None:
        """One row per repeated case (shown instead of the table by Group repeats)."""
        self.groups = RepeatGroupsModel()
        self.group_table = QTableView(self)
        self.group_table.setModel(self.groups)
        self.group_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.group_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.group_table.verticalHeader().setVisible(False)
        self.group_table.horizontalHeader().setStretchLastSection(True)
        self.group_table.selectionModel().selectionChanged.connect(self._group_selected)
        self.group_table.hide()

    def _build_split(self) -> QSplitter:
        """The tables above the case view. With no case open the list has the height and the
        case view is one line; a click on a row opens the case, which takes the height but a
        strip of the list (``CASE_TABLE_ROWS`` rows, the chosen one in view); ✕ or Esc closes
        it. The strip's height is the user's to drag, and is remembered (issue 50)."""
        self.case_open: bool = False  # a case is shown (the list is a strip above it)
        self.detail = CaseDetail(self, case_view=True)
        self.detail.closed.connect(self.close_case)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)  # in the list or the case
        escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        escape.activated.connect(lambda: self.close_case() if self.case_open else None)
        self.table.setMinimumHeight(TABLE_MIN_HEIGHT)
        self.group_table.setMinimumHeight(TABLE_MIN_HEIGHT)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(self.group_table)  # hidden unless Group repeats is on
        split.addWidget(self.detail)
        split.setChildrenCollapsible(False)
        split.splitterMoved.connect(self._strip_dragged)
        self.split = split
        self.case_table_height = CASE_TABLE_HEIGHT  # the list's strip above an open case
        self._set_case_open(False)
        return split

    def split_sizes(self) -> list[int]:
        """The heights an open case has: the list's strip, the grouped table's, the case view
        (kept in the settings; with no case open, what a case would get)."""
        total = max(sum(self.split.sizes()), self.case_table_height + DETAIL_MIN_HEIGHT)
        grouped = self.group_button.isChecked()
        strip = self.case_table_height
        return [0 if grouped else strip, strip if grouped else 0, total - strip]

    def restore_split_sizes(self, sizes: object) -> bool:
        """The strip an earlier session kept, unless it would hide a part: a case view or a
        list below its minimum (a collapsed splitter, a smaller screen) keeps the default."""
        if not (isinstance(sizes, list | tuple) and len(sizes) == 3):
            return False
        try:
            table, groups, detail = (int(s) for s in sizes)
        except (TypeError, ValueError):
            return False
        if detail < DETAIL_MIN_HEIGHT or max(table, groups) < TABLE_MIN_HEIGHT:
            return False
        self.case_table_height = max(table, groups)
        if self.case_open:
            self._size_for_case()
        return True

    def _strip_dragged(self, _position: int, _index: int) -> None:
        if self.case_open:
            table, groups, _detail = self.split.sizes()
            self.case_table_height = max(table, groups)

    def _set_case_open(self, open_: bool) -> None:
        """Give the height to the case (open) or to the list (closed)."""
        self.case_open = open_
        # a taller window gives its height to the case while one is open, else to the list
        for index, stretch in enumerate((0, 0, 1) if open_ else (1, 1, 0)):
            self.split.setStretchFactor(index, stretch)
        if open_:
            self.detail.setMinimumHeight(DETAIL_MIN_HEIGHT)
            self.detail.setMaximumHeight(16_777_215)
            self._size_for_case()
        else:
            line = self.detail.header.sizeHint().height() + 4
            self.detail.setMinimumHeight(line)
            self.detail.setMaximumHeight(line)
            rest = max(sum(self.split.sizes()) - line, 0)
            grouped = self.group_button.isChecked()
            self.split.setSizes([0 if grouped else rest, rest if grouped else 0, line])
        self.case_open_changed.emit(open_)

    def _size_for_case(self) -> None:
        total = sum(self.split.sizes())
        if total <= 0:
            return
        strip = min(self.case_table_height, max(total - DETAIL_MIN_HEIGHT, TABLE_MIN_HEIGHT))
        grouped = self.group_button.isChecked()
        self.split.setSizes([0 if grouped else strip, strip if grouped else 0, total - strip])

    def close_case(self) -> None:
        """Back to the list: no case chosen, the list gets the height again."""
        self.table.clearSelection()
        self.group_table.clearSelection()
        self.workspace.choose(None)

    def _clicked(self, index: QModelIndex) -> None:
        """A click on the chosen row opens its case again after ✕ (no selection change)."""
        if not self.case_open and index.isValid():
            self.workspace.choose(self.model.row(self.proxy.mapToSource(index).row()))

    def _build_layout(self, bar: FlowLayout, split: QSplitter) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(split, 1)

    def _connect_signals(self) -> None:
        """New rows refresh the filter choices and the "N of M shown" label."""
        # filter choices are recomputed over all rows: at most every 300 ms while rows stream in
        self._filters_timer = QTimer(self)
        self._filters_timer.setSingleShot(True)
        self._filters_timer.setInterval(300)
        self._filters_timer.timeout.connect(self._refresh_filters)
        self.results.reset.connect(self._refresh_filters)
        self.results.rows_added.connect(lambda *_: self._rows_added())
        self.results.filters_changed.connect(self._show_filters)
        self.results.chosen.connect(self._show_chosen)
        # every way the shown rows change (a filter or the search re-filters by inserting and
        # removing rows) updates the "N of M shown" label
        self.proxy.rowsInserted.connect(lambda *_: self._update_count())
        self.proxy.rowsRemoved.connect(lambda *_: self._update_count())
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)

    def _rows_added(self) -> None:
        self._update_count()
        if not self._filters_timer.isActive():
            self._filters_timer.start()

    def _group_toggled(self, on: bool) -> None:
        table, groups, detail = self.split.sizes()
        self.table.setVisible(not on)
        self.group_table.setVisible(on)
        shown = max(table, groups)  # the shown table takes the height the other had
        self.split.setSizes([0, shown, detail] if on else [shown, 0, detail])
        if on:
            self.refresh_groups()

    def refresh_groups(self) -> None:
        """Group the rows the filters and search show, in the table's order (so "Failures
        only" still applies); the workspace groups them."""
        self.groups.set_groups(self.workspace.groups(self.proxy.shown()))

    def _group_selected(self, *_args: object) -> None:
        indexes = self.group_table.selectionModel().selectedRows()
        if not indexes:
            return
        self.workspace.choose(self.groups.groups[indexes[0].row()].row)

    def _filter_changed(self, key: str, box: QComboBox) -> None:
        self.workspace.set_equal(key, box.currentData() or "")

    def _search_changed(self) -> None:
        self.workspace.set_text(self.search.text())

    def _failures_toggled(self, on: bool) -> None:
        self.workspace.set_failures_only(on)

    def _refresh_filters(self) -> None:
        self._fit_columns()
        for key, box in self.filters.items():
            values = self.workspace.choices(key)
            current = box.currentData()
            box.blockSignals(True)
            box.clear()
            box.addItem("all", "")
            for value in values:
                box.addItem(environment_name(value) if key == "environment" else value, value)
            index = box.findData(current)
            box.setCurrentIndex(max(0, index))
            box.blockSignals(False)
        self._update_count()

    def _show_filters(self, filters: ResultsFilters) -> None:
        """The bar shows the workspace's filters, however they were set (the search box is
        left as typed: the workspace keeps its text stripped and in lower case)."""
        for key, box in self.filters.items():
            index = max(0, box.findData(filters.equals.get(key, "")))
            if index != box.currentIndex():
                box.blockSignals(True)
                box.setCurrentIndex(index)
                box.blockSignals(False)
        for button, on in (
            (self.failures, filters.failures_only),
            (self.flaky_button, filters.flaky_only),
        ):
            if button.isChecked() != on:
                button.blockSignals(True)
                button.setChecked(on)
                button.blockSignals(False)
        self._update_count()

    def _update_count(self) -> None:
        if self.group_button.isChecked():
            self.refresh_groups()
        self.count.setText(self.workspace.count_text())

    def _fit_columns(self) -> None:
        """Leave out the columns whose value is the same in every row, and make the count as
        wide as its longest text for the rows there are (it never cuts, and never moves the
        bar's controls while rows stream in)."""
        same = self.workspace.same_everywhere(HIDEABLE)
        for column, (_title, key) in enumerate(COLUMNS):
            self.table.setColumnHidden(column, key in same)
        total = len(self.workspace.executions)
        widest = count_text(total, total, total)
        self.count.setMinimumWidth(self.count.fontMetrics().horizontalAdvance(widest) + 4)

    def set_filter(self, key: str, value: str) -> None:
        box = self.filters[key]
        index = box.findData(value)
        box.setCurrentIndex(max(0, index))

    def set_oracle(self, oracle: OracleResult | None, environment: Environment | None) -> None:
        self.oracle, self.environment = oracle, environment
        shown = self.detail.shown_row
        if shown is not None:
            self.detail.show_row(shown, self._oracle_for(shown), self._names())

    def _names(self) -> dict[str, str]:
        return self.environment.variables if self.environment is not None else {}

    def _oracle_for(self, row: Row) -> OracleResult | None:
        if same_model(row, self.oracle):
            return self.oracle
        return None

    def select_row(self, proxy_row: int) -> None:
        self.table.selectRow(proxy_row)

    def select_first_failure(self) -> bool:
        """Select the first shown row that did not pass (for screenshots and demos)."""
        for proxy_row in range(self.proxy.rowCount()):
            if self.model.row(self.proxy.source_row(proxy_row)).verdict in NOT_PASSED:
                self.select_row(proxy_row)
                return True
        return False

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = self.table.selectionModel().selectedRows()
        if not indexes:
            return
        self.workspace.choose(self.model.row(self.proxy.mapToSource(indexes[0]).row()))

    def _show_chosen(self, execution: StoredExecution | None) -> None:
        """The workspace's chosen case in full, the list kept as a strip with the chosen row in
        view; the window highlights its states. None closes the case."""
        if execution is None:
            self.detail.show_row(None)
            if self.case_open:
                self._set_case_open(False)
            return
        self.detail.show_row(execution, self._oracle_for(execution), self._names())
        if not self.case_open:
            self._set_case_open(True)
        QTimer.singleShot(0, self._chosen_in_view)  # once the list is the strip's height
        self.case_selected.emit(execution)

    def _chosen_in_view(self) -> None:
        """The chosen row in the middle of the list's strip."""
        shown = self.group_table if self.group_button.isChecked() else self.table
        selected = shown.selectionModel().selectedRows()
        if selected and self.case_open:  # by its last column: a hidden one would not scroll
            last = selected[0].sibling(selected[0].row(), shown.model().columnCount() - 1)
            shown.scrollTo(last, QAbstractItemView.ScrollHint.PositionAtCenter)


class ResultsView(QTabWidget):
    """Executions | Side by side."""

    case_selected = Signal(object)
    states_highlighted = Signal(object)  # state ids the factor panel marks ([]: clear)

    def __init__(
        self, results: ResultsData, parent: QWidget | None = None, tasks: Tasks | None = None
    ) -> None:
        super().__init__(parent)
        self.executions = ExecutionsPanel(results, self)
        self.compare = ComparePanel(results, self, tasks)
        # a factors case also shows its factor marks and interventions (views/factor_panel.py)
        self.factor_panel = FactorPanel(tasks)
        self.executions.detail.attach_factor_panel(
            self.factor_panel, lambda: (self.executions.environment, results.db_path)
        )
        self.factor_panel.highlight.connect(self.states_highlighted)
        # side by side: each answer's citations next to the same truth (the Q bars once, on A's
        # side); one controller, so an intervened oracle is checked once for the session; a
        # factor selected on one side is selected on both
        self.compare_factors = (
            FactorPanel(tasks, self.factor_panel.controller),
            FactorPanel(tasks, self.factor_panel.controller, compact=True),
        )
        details = (self.compare.detail_a, self.compare.detail_b)
        for detail, panel in zip(details, self.compare_factors, strict=True):
            detail.attach_factor_panel(panel, lambda: (self.compare.environment, results.db_path))
            panel.highlight.connect(self.states_highlighted)
        panel_a, panel_b = self.compare_factors
        panel_a.factor_chosen.connect(panel_b.follow)
        panel_b.factor_chosen.connect(panel_a.follow)
        self.addTab(self.executions, "Executions")
        self.addTab(self.compare, "Side by side")
        self.executions.case_selected.connect(self.case_selected)
        self.compare.case_selected.connect(self.case_selected)

    def set_oracle(self, oracle: OracleResult | None, environment: Environment | None) -> None:
        self.executions.set_oracle(oracle, environment)
        self.compare.oracle, self.compare.environment = oracle, environment

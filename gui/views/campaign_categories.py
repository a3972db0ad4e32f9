"""The Campaign tab's categories: a tree grouped by dimension, each ticked or not.

It keeps what the user ticked (``wanted_categories``) apart from what the open model allows:
greying out a category that does not apply here must not forget that the user wants it on the
next model where it does. How each category shows is decided in
``core.workspace.presentation.category_marks``, from the facts of ``campaign_setup``.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QGroupBox,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.campaign_setup import category_entries
from explaincheck.core.workspace.presentation.category_marks import base_title, category_mark
from explaincheck.gui.views.campaign_llm_box import checked

DIMENSION_TITLES = (
    ("state", "State (object)"),
    ("preference", "Preference (object)"),
    ("scope", "Scope"),
    ("mode", "Mode"),
    ("explanation", "Explanation (why)"),
)
CATEGORY = Qt.ItemDataRole.UserRole  # where each row keeps its category id


class WrappingTree(QTreeWidget):
    """A tree whose rows wrap their words to the width there is, never eliding: a category's
    name is read whole at 1366 and 1280 px with both docks open (issue 50: "Best action...
    est_action)", "Which state..._promising)"). Rows are laid out again when the width
    changes, since a tree keeps the heights it measured."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setUniformRowHeights(False)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setItemDelegate(_WrappingRows(self))
        self._width = -1

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.viewport().width() != self._width:
            self._width = self.viewport().width()
            self.scheduleDelayedItemsLayout()


class _WrappingRows(QStyledItemDelegate):
    """Each row as tall as its text wrapped to the room its column leaves it (a tree asks a
    delegate for a row's height without the column's width, so Qt's own wrapping never grows
    a row and the text was elided instead)."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self.tree = tree

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        hint = super().sizeHint(option, index)
        shown = QStyleOptionViewItem(option)
        self.initStyleOption(shown, index)
        depth, parent = 1, index.parent()  # the root's branch marks take one indentation
        while parent.isValid():
            depth, parent = depth + 1, parent.parent()
        room = self.tree.viewport().width() - depth * self.tree.indentation()
        if room <= 0 or not shown.text:
            return hint
        shown.rect = QRect(0, 0, room, hint.height())
        style = self.tree.style()
        text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, shown, self.tree)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.tree) + 1
        width = max(text_rect.width() - 2 * margin, 1)
        flags = Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft
        text = shown.fontMetrics.boundingRect(QRect(0, 0, width, 100_000), flags, shown.text)
        return QSize(min(hint.width(), room), max(hint.height(), text.height() + 4))


class CategoryBox(QGroupBox):
    """ "Categories": ticked rows are asked; greyed-out rows do not apply to the open model."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Categories", parent)
        layout = QVBoxLayout(self)
        self.categories = WrappingTree(self)
        self.categories.setHeaderHidden(True)
        self.categories.setIndentation(14)
        self.categories.setMinimumHeight(200)
        self.category_items: dict[str, QTreeWidgetItem] = {}
        self.wanted_categories: set[str] | None = None  # the user's choice (None: all)
        self.reasons: dict[str, str] = {}  # why a category does not apply here
        self.applied: OracleResult | None = None  # the oracle the rows reflect
        self._updating = False
        self._fill()
        self.categories.itemChanged.connect(self._toggled)
        layout.addWidget(self.categories)

    def _fill(self) -> None:
        parents: dict[str, QTreeWidgetItem] = {}
        for dimension, title in DIMENSION_TITLES:
            parent = QTreeWidgetItem([title])
            # not Qt's auto-tristate: it counts greyed-out children, so a group holding a
            # category that does not apply stayed half-ticked and took two clicks to clear
            parent.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            parent.setCheckState(0, Qt.CheckState.Checked)
            self.categories.addTopLevelItem(parent)
            parents[dimension] = parent
        for category in category_entries():
            group = parents.get(category.dimension)
            if group is None:
                continue
            category_id = category.id
            item = QTreeWidgetItem([f"{category.title}  ({category_id})"])
            item.setToolTip(0, f"{category.title}  ({category_id})")
            item.setData(0, CATEGORY, category_id)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked)
            group.addChild(item)
            self.category_items[category_id] = item
        self.groups = list(parents.values())
        self.categories.expandAll()
        self._room_for_the_longest_word()

    def _room_for_the_longest_word(self) -> None:
        """Never narrower than its longest word ("(subset_bottleneck)"): wrapping breaks
        between words, and a word wider than its row would be cut."""
        tree = self.categories
        words = (w for item in self.category_items.values() for w in item.text(0).split())
        widest = max((tree.fontMetrics().horizontalAdvance(w) for w in words), default=0)
        style = tree.style()
        check = style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth, None, tree)
        bar = style.pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, tree)
        # two levels of indentation, the check box and its spacing, the text's margins
        tree.setMinimumWidth(widest + 2 * tree.indentation() + check + bar + 24)

    def _refresh_groups(self) -> None:
        """Each group's tick from its categories that can be chosen: all, none or some."""
        was, self._updating = self._updating, True
        for group in self.groups:
            states = [child.checkState(0) for child in _choosable(group)]
            if states and all(s == Qt.CheckState.Checked for s in states):
                group.setCheckState(0, Qt.CheckState.Checked)
            elif any(s == Qt.CheckState.Checked for s in states):
                group.setCheckState(0, Qt.CheckState.PartiallyChecked)
            else:
                group.setCheckState(0, Qt.CheckState.Unchecked)
        self._updating = was

    def _group_toggled(self, group: QTreeWidgetItem) -> None:
        """One click on a group ticks or clears every category in it that can be chosen."""
        on = group.checkState(0) != Qt.CheckState.Unchecked
        self._updating = True
        for child in _choosable(group):
            child.setCheckState(0, checked(on))
            self._record(child.data(0, CATEGORY), on)
        self._updating = False
        self._refresh_groups()

    def show_applicability(
        self, oracle: OracleResult, found: Mapping, offers: Mapping, idle: Mapping[str, str]
    ) -> None:
        """Mark every category for ``oracle`` (``found``: each one's applicability;
        ``offers``: how the on-request ones are offered, by id)."""
        self.reasons = {cid: f.reason for cid, f in found.items() if f.reason}
        self._updating = True
        for category_id, item in self.category_items.items():
            mark = category_mark(
                category_id,
                base_title(item.text(0)),
                found[category_id],
                offers.get(category_id),
                idle,
                self.wanted_categories,
            )
            if mark.enabled:
                item.setDisabled(False)
            item.setText(0, mark.text)
            item.setToolTip(0, mark.tip)
            item.setCheckState(0, checked(mark.ticked))
            if not mark.enabled:
                item.setDisabled(True)
        self._updating = False
        self._refresh_groups()
        self.applied = oracle

    def _toggled(self, item: QTreeWidgetItem, _column: int) -> None:
        """Remember what the user ticks (not what applicability greys out)."""
        category_id = item.data(0, CATEGORY)
        if self._updating or item.isDisabled():
            return
        if not category_id:
            self._group_toggled(item)
            return
        self._record(category_id, item.checkState(0) == Qt.CheckState.Checked)
        self._refresh_groups()

    def _record(self, category_id: str, on: bool) -> None:
        if self.wanted_categories is None:
            # the first tick the user makes: start from what is shown ticked (greyed-out
            # categories count as wanted, so they come back on a model where they apply)
            self.wanted_categories = {
                cid
                for cid, other in self.category_items.items()
                if other.isDisabled() or other.checkState(0) == Qt.CheckState.Checked
            }
        if on:
            self.wanted_categories.add(category_id)
        else:
            self.wanted_categories.discard(category_id)

    def selected_categories(self) -> list[str]:
        return [
            cid
            for cid, item in self.category_items.items()
            if item.checkState(0) == Qt.CheckState.Checked and not item.isDisabled()
        ]

    def set_categories(self, ids: list[str]) -> None:
        self.wanted_categories = set(ids)
        self._updating = True
        for cid, item in self.category_items.items():
            if not item.isDisabled():
                item.setCheckState(0, checked(cid in ids))
        self._updating = False
        self._refresh_groups()

    def choices(self) -> dict[str, list[str] | None]:
        wanted = self.wanted_categories
        return {"categories": sorted(wanted) if wanted is not None else None}

    def apply(self, choices: dict) -> None:
        categories = choices.get("categories")
        if not isinstance(categories, list):
            return
        self.wanted_categories = {str(c) for c in categories if str(c) in self.category_items}
        self._updating = True
        for cid, item in self.category_items.items():
            if not item.isDisabled():
                item.setCheckState(0, checked(cid in self.wanted_categories))
        self._updating = False
        self._refresh_groups()


def _choosable(group: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    """The group's categories that can be ticked (a category that does not apply is greyed)."""
    children = (group.child(i) for i in range(group.childCount()))
    return [child for child in children if child is not None and not child.isDisabled()]

"""The Campaign tab's categories: a tree grouped by dimension, each ticked or not.

It keeps what the user ticked (``wanted_categories``) apart from what the open model allows:
greying out a category that does not apply here must not forget that the user wants it on the
next model where it does. How each category shows is decided in
``core.workspace.presentation.category_marks``, from the facts of ``campaign_setup``.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

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


class CategoryBox(QGroupBox):
    """ "Categories": ticked rows are asked; greyed-out rows do not apply to the open model."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Categories", parent)
        layout = QVBoxLayout(self)
        self.categories = QTreeWidget(self)
        self.categories.setHeaderHidden(True)
        # cut in the middle: "Which state is…(safer)" keeps each category's own end in view
        self.categories.setTextElideMode(Qt.TextElideMode.ElideMiddle)
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

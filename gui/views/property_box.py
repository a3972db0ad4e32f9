"""The Model panel's property box: the property V is computed for, chosen from a list or typed.

The list is ``core.workspace.property_choices`` (the Goal box's Pmax=? [F goal], the
environment's own properties, the property file beside the model); any PRISM property text may
be typed instead. Choosing one recomputes the oracle as a model load does (``ModelController.
choose_property``, the command line's ``--property`` path); a refused one is one red line here,
and the property in use (with its oracle) stays.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.property_units import units_of
from explaincheck.core.workspace.property_choices import property_choices
from explaincheck.gui.adapters.model_controller import ModelController
from explaincheck.gui.support.safe_text import plain_label

PROPERTY_TIP = (
    "The property V is computed for and every question is asked about: one of the list (the"
    " environment's own, or the .props file beside the model), or PRISM property text such as"
    ' R{"time"}min=? [F "done"], Pmax=?/Pmin=? [F φ], [φ U ψ] or [F<=k φ]. Enter or Use'
    " recomputes the oracle."
)


class PropertyBox(QWidget):
    """The property list, Use, the property in use in words, and a refused property's line
    (the Model form's "Property:" row)."""

    def __init__(self, controller: ModelController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.choice = QComboBox(self)
        self.choice.setEditable(True)
        # typed text is used as typed, never added to the list (an added entry would carry no
        # --property text, and Enter would choose the Goal box's property instead)
        self.choice.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.choice.setToolTip(PROPERTY_TIP)
        self.choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        # few characters: the Model panel fits its dock at 1280 px (the list names it whole)
        self.choice.setMinimumContentsLength(5)
        self.choice.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        line = self.choice.lineEdit()
        assert line is not None  # the box is editable
        line.returnPressed.connect(self.use)
        row.addWidget(self.choice, 1)
        self.use_button = QPushButton("Use")
        self.use_button.setToolTip("Compute the oracle under this property")
        self.use_button.clicked.connect(self.use)
        row.addWidget(self.use_button)
        layout.addLayout(row)
        self.in_use = plain_label("")
        self.in_use.setWordWrap(True)
        self.in_use.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.in_use)
        self.refused = plain_label("")
        self.refused.setWordWrap(True)
        self.refused.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.refused.setStyleSheet("color: #8a1c00;")
        self.refused.hide()
        layout.addWidget(self.refused)
        self.setEnabled(False)
        controller.environment_changed.connect(self.set_environment)
        controller.oracle_ready.connect(self.show_oracle)
        controller.property_refused.connect(self.show_refused)
        controller.busy_changed.connect(lambda busy: self.use_button.setEnabled(not busy))

    def set_environment(self, environment: Environment) -> None:
        """The list of the newly opened model (its property: the Goal box's, until chosen)."""
        self.choice.blockSignals(True)
        self.choice.clear()
        for entry in property_choices(environment):
            self.choice.addItem(entry.label, entry.spec)
            self.choice.setItemData(
                self.choice.count() - 1, entry.label, Qt.ItemDataRole.ToolTipRole
            )
        self._select(self.controller.property_spec)
        self.choice.blockSignals(False)
        self.refused.hide()
        self.setEnabled(True)

    def show_oracle(self, oracle: OracleResult, _environment: Environment) -> None:
        """The property the new oracle is computed for, in PRISM text and in words."""
        units = units_of(oracle)
        self.in_use.setText(f"In use: {oracle.prop.text}")
        self.in_use.setToolTip(units.sentence)
        self._select(self.controller.property_spec)

    def show_refused(self, line: str) -> None:
        self.refused.setText(f"Not used: {line}")
        self.refused.show()

    def spec(self) -> str:
        """The ``--property`` text of the box: the chosen entry's, or the text typed."""
        text = self.choice.currentText().strip()
        index = self.choice.currentIndex()
        if index >= 0 and text == self.choice.itemText(index).strip():
            return str(self.choice.itemData(index) or "")
        found = self.choice.findText(text)
        return str(self.choice.itemData(found) or "") if found >= 0 else text

    def use(self) -> None:
        """Compute the oracle under the property of the box."""
        if self.controller.environment is None:
            return
        self.refused.hide()
        self.controller.choose_property(self.spec())

    def _select(self, spec: str) -> None:
        """Show ``spec``'s entry (its text when it was typed)."""
        found = self.choice.findData(spec)
        if found >= 0:
            self.choice.setCurrentIndex(found)
        else:
            self.choice.setEditText(spec)
        line = self.choice.lineEdit()
        if line is not None:  # a long entry reads from its start
            line.setCursorPosition(0)

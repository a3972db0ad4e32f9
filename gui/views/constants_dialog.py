"""Asks for the values of constants a PRISM file leaves undefined (e.g. ``const int N;``)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.oracle.constants_text import literal
from explaincheck.core.oracle.program import ProgramConstant as Constant

_EXAMPLES = {"int": "e.g. 4", "double": "e.g. 0.5", "bool": "true or false"}


def valid(constant: Constant, text: str) -> bool:
    """Whether ``text`` is a value of the constant's type (read as ``--const`` reads it)."""
    try:
        value = literal(text.strip())
    except ValueError:
        return False
    if constant.type == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    return isinstance(value, int) if constant.type == "int" else True


class ConstantsDialog(QDialog):
    """One field per undefined constant, typed, OK enabled only when all are valid."""

    def __init__(
        self,
        constants: list[Constant],
        defaults: dict[str, str] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Undefined constants")
        self.constants = constants
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("The model leaves these constants open. Give a value for each:"))
        form = QFormLayout()
        self.fields: dict[str, QLineEdit] = {}
        for constant in constants:
            field = QLineEdit(self)
            field.setPlaceholderText(_EXAMPLES.get(constant.type, ""))
            field.setText((defaults or {}).get(constant.name, ""))
            field.textChanged.connect(self._check)
            self.fields[constant.name] = field
            form.addRow(f"{constant.name} ({constant.type}):", field)
        layout.addLayout(form)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._check()

    def _check(self) -> None:
        ok = all(valid(c, self.fields[c.name].text()) for c in self.constants)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def values(self) -> dict[str, str]:
        return {name: field.text().strip() for name, field in self.fields.items()}

"""Ask before a campaign writes a very large results file (``--repeat 5000`` wrote 3 GB without
a word); the CLI prints the same line as a warning (``core.campaign.plan_size``)."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

TITLE = "A very large campaign"


def confirm_large_plan(parent: QWidget | None, warning: str) -> bool:
    """Whether the user wants the run; No is the default, so Enter does not write gigabytes."""
    text = warning.removeprefix("warning: ")
    answer = QMessageBox.question(
        parent,
        TITLE,
        f"{text[:1].upper()}{text[1:]}.\n\nRun it?",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes

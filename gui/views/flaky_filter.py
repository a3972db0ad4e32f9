"""The Results tab's "Flaky only" button: the repeated cases whose verdicts disagree.

Why a filter: with ``--repeat k`` the flaky cases are the ones to quarantine (or leave out of a
comparison); finding them among hundreds of grouped rows by eye is the job this saves. It works
on the grouped view (Group repeats), which it turns on.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QBoxLayout, QToolButton


def add_flaky_button(panel: Any, layout: QBoxLayout) -> QToolButton:
    """A checkable "Flaky only" in ``layout``; ``panel`` is the executions panel (its
    ``groups`` model, ``group_button`` and ``refresh_groups``)."""
    button = QToolButton(panel)
    button.setText("Flaky only")
    button.setCheckable(True)
    button.setToolTip(
        "Group repeats and show only the flaky cases: repeats that disagree (docs/method.md)"
    )

    def toggled(on: bool) -> None:
        panel.groups.flaky_only = on
        if on and not panel.group_button.isChecked():
            panel.group_button.setChecked(True)  # refreshes the groups itself
        else:
            panel.refresh_groups()

    button.toggled.connect(toggled)
    layout.addWidget(button)
    return button

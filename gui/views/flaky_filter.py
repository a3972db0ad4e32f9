"""The Results tab's "Flaky only" button: the repeated cases whose verdicts disagree.

Why a filter: with ``--repeat k`` the flaky cases are the ones to quarantine (or leave out of a
comparison); finding them among hundreds of grouped rows by eye is the job this saves. It works
on the grouped view (Group repeats), which it turns on; the rule is the workspace's
(``ResultsFilters.flaky_only``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLayout, QToolButton


def add_flaky_button(panel: Any, layout: QLayout) -> QToolButton:
    """A checkable "Flaky only" in ``layout``; ``panel`` is the executions panel (its
    ``workspace`` and ``group_button``)."""
    button = QToolButton(panel)
    button.setText("Flaky only")
    button.setCheckable(True)
    button.setToolTip(
        "Group repeats and show only the flaky cases: repeats that disagree (docs/method.md)"
    )

    def toggled(on: bool) -> None:
        panel.workspace.set_flaky_only(on)  # the grouped table follows the filters
        if on and not panel.group_button.isChecked():
            panel.group_button.setChecked(True)

    button.toggled.connect(toggled)
    layout.addWidget(button)
    return button

"""A tab widget as small as the tab in front needs, not as the largest of its tabs.

Why: Qt sizes a ``QTabWidget`` by the largest minimum of all its pages, shown or not, so one
wide tab (the Results tab at a presentation size of 150 %) made the whole window wider than a
laptop screen while the Workbench or Teach tab was in front (issue 50, point 6). The pages
behind are given an ``Ignored`` size policy, which ``QStackedLayout`` leaves out of its minimum;
the page in front keeps its own.
"""

from __future__ import annotations

from PySide6.QtWidgets import QSizePolicy, QTabWidget


def size_by_current_tab(tabs: QTabWidget) -> None:
    """Make ``tabs`` need only what its current page needs, now and whenever it changes."""
    policies: dict[int, tuple[QSizePolicy.Policy, QSizePolicy.Policy]] = {}

    def follow(_index: int = -1) -> None:
        current = tabs.currentWidget()
        for index in range(tabs.count()):
            page = tabs.widget(index)
            if page is None:
                continue
            own = policies.setdefault(
                id(page), (page.sizePolicy().horizontalPolicy(), page.sizePolicy().verticalPolicy())
            )
            policy = page.sizePolicy()
            if page is current:
                policy.setHorizontalPolicy(own[0])
                policy.setVerticalPolicy(own[1])
            else:
                policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
                policy.setVerticalPolicy(QSizePolicy.Policy.Ignored)
            page.setSizePolicy(policy)
        tabs.updateGeometry()

    tabs.currentChanged.connect(follow)
    follow()

"""One selected state in every view (issue 50, point 8).

The state is held by the open model's Qt-free ``StateSelection`` (``core/workspace/selection.py``,
kept by valuation across a rebuild). Here every view that can be clicked asks it to move — the
main graph, the inspector's successors, the Workbench (its graph, the Bellman page's successors,
the simulator's walk) and the Teach tab (its graph, the case it moves to while it is in front) —
and every view follows it: the main graph's ring, the inspector, the Workbench's pages and graph,
the Teach tab's case and graph. A view that follows calls nothing back: a selection of the state
already selected is no change, so the views' own echoes stop there.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QTabWidget

from explaincheck.core.workspace.selection import StateSelection
from explaincheck.gui.views.graph_view import GraphView
from explaincheck.gui.views.state_inspector import StateInspector
from explaincheck.gui.views.teach_view import TeachView
from explaincheck.gui.views.workbench_view import WorkbenchView


@dataclass(frozen=True)
class SelectionViews:
    """The views that show the selected state and can move it."""

    graph: GraphView
    inspector: StateInspector
    workbench: WorkbenchView
    teach: TeachView
    tabs: QTabWidget


def follow_selection(selection: StateSelection, views: SelectionViews) -> None:
    """Connect every view to the one selection, both ways."""
    graph, inspector, workbench, teach = views.graph, views.inspector, views.workbench, views.teach

    def changed(state: int | None) -> None:
        inspector.show_state(state)
        if state is None:
            return
        graph.select_state(state, centre=False)
        workbench.show_selected(state)
        teach.follow(state)

    def teach_case(states: tuple[int, ...]) -> None:
        """A case chosen in Teach (Next, another category) selects its first state, while
        Teach is in front; behind, its cases never move what the other views show."""
        if teach.isVisible() and states and selection.state not in states:
            selection.select(states[0])

    def tab_changed(_index: int) -> None:
        if views.tabs.currentWidget() is teach:  # Teach now in front: it and the rest agree
            teach_case(teach.case_states())

    selection.changed.connect(changed)
    graph.state_selected.connect(selection.select)
    inspector.state_requested.connect(selection.select)
    workbench.state_requested.connect(selection.select)
    teach.graph.state_selected.connect(selection.select)
    teach.case_shown.connect(teach_case)
    views.tabs.currentChanged.connect(tab_changed)

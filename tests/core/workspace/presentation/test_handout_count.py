"""The handout's count of Teach cases in words: "1 Teach case", "2 Teach cases" (issue 50: the
Workbench said "1 Teach cases in the handout")."""

from __future__ import annotations

from explaincheck.core.workspace.presentation.workbench import WorkbenchWorkspace


def test_one_teach_case_is_said_in_the_singular():
    bench = WorkbenchWorkspace()
    assert bench.add_lesson(object()) == "1 Teach case in the handout"
    assert bench.add_lesson(object()) == "2 Teach cases in the handout"

"""The Model panel's File line names what is open: after a Workbench edit builds, the open model
is the editor's checked copy, said as the unsaved edit of the file it came from (a built-in's),
also after a second edit; opening a file again names that file plainly."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import open_env, wait_for

MODELS = Path(__file__).resolve().parents[1] / "models"


def _edit(qtbot, window, label: str) -> None:
    page = window.workbench.editor
    page.editor.appendPlainText(f'label "{label}" = true;')
    wait_for(qtbot, lambda: label in window.model.oracle.model.labels, 60)


def test_the_file_line_names_the_edited_copy_of_a_builtin(qtbot, window):
    open_env(qtbot, window, "frozen_lake")
    builtin_file = window.model.environment.model_path
    assert window.model_view.path.text() == builtin_file
    window.show_tab("workbench")
    window.workbench.editor.load_button.click()
    _edit(qtbot, window, "first_edit")
    copy = window.model.environment.model_path
    assert copy != builtin_file
    said = window.model_view.path.text()
    assert said.startswith(f"Unsaved Workbench edit of {builtin_file}")
    assert copy in said
    _edit(qtbot, window, "second_edit")  # an edit of the copy still edits the built-in's file
    assert window.model_view.path.text().startswith(f"Unsaved Workbench edit of {builtin_file}")
    flip = str(MODELS / "flip.prism")
    from explaincheck.core.environments.registry import resolve

    window.model.open_environment(resolve(flip, constants="p=0.3"))
    wait_for(qtbot, lambda: window.model.environment.model_path == flip, 60)
    wait_for(qtbot, lambda: window.model.oracle is not None and window.graph.ready, 60)
    assert window.model_view.path.text() == flip


def test_after_save_the_file_line_names_the_saved_file(qtbot, window, tmp_path):
    open_env(qtbot, window, "frozen_lake")
    builtin_file = window.model.environment.model_path
    window.show_tab("workbench")
    window.workbench.editor.load_button.click()
    _edit(qtbot, window, "kept_edit")
    copy = window.model.environment.model_path
    page = window.workbench.editor
    mine = tmp_path / "mine.prism"
    page.source_path = str(mine)
    page.save()
    assert mine.read_text(encoding="utf-8") == page.editor.toPlainText()
    said = window.model_view.path.text()
    assert said == f"Workbench edit of {builtin_file}, saved as {mine} (checked copy: {copy})"
    _edit(qtbot, window, "later_edit")  # checked anew: the open model is not the saved text
    assert window.model_view.path.text().startswith(f"Unsaved Workbench edit of {builtin_file}")

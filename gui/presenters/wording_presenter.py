"""File › Save wording as environment folder…: the open bare PRISM model and its generic
wording written as an environment folder, to edit and reopen as an environment."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.workspace.presentation.window_text import saved_wording_text
from explaincheck.gui.support.tasks import in_thread

if TYPE_CHECKING:
    from explaincheck.gui.main_window import MainWindow


class WordingPresenter:
    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window, "Save wording as environment folder")
        if folder:
            self.save_wording(folder)

    def save_wording(self, folder: str) -> asyncio.Task:
        return self.window.tasks.start(self._save(folder), "save wording")

    async def _save(self, folder: str) -> None:
        from explaincheck.core.environments.generic import save_wording

        window = self.window
        environment = window.model.environment
        if environment is None:
            return
        try:
            written = await in_thread(save_wording, environment, folder)
        except (ExplaincheckError, OSError) as error:
            window.errors.append(str(error))
            window.statusBar().showMessage(f"Cannot save the wording: {error}", 15000)
            return
        window.statusBar().showMessage(saved_wording_text(written, folder), 15000)

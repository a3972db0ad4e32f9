"""File › Save wording as environment folder…: the open bare PRISM model and its generic
wording written as an environment folder, to edit and reopen as an environment."""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QFileDialog, QWidget

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.workspace.presentation.window_text import saved_wording_text
from explaincheck.gui.adapters.model_controller import ModelController
from explaincheck.gui.presenters.notices import Notices
from explaincheck.gui.support.tasks import Tasks, in_thread


class WordingPresenter:
    def __init__(
        self, model: ModelController, tasks: Tasks, notices: Notices, parent: QWidget
    ) -> None:
        self.model, self.tasks, self.notices, self.parent = model, tasks, notices, parent

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.parent, "Save wording as environment folder")
        if folder:
            self.save_wording(folder)

    def save_wording(self, folder: str) -> asyncio.Task:
        return self.tasks.start(self._save(folder), "save wording")

    async def _save(self, folder: str) -> None:
        from explaincheck.core.environments.generic import save_wording

        environment = self.model.environment
        if environment is None:
            return
        try:
            written = await in_thread(save_wording, environment, folder)
        except (ExplaincheckError, OSError) as error:
            self.notices.fail(str(error), f"Cannot save the wording: {error}")
            return
        self.notices.say(saved_wording_text(written, folder), 15000)

"""File › Open policy…: a policy table attached to the open model's oracle, handed to every
view (graph, inspector, Campaign and Report tabs, Workbench simulator), and the Report tab's
value-loss table of the loaded and stored policies."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import policy_chain
from explaincheck.core.workspace.presentation.window_text import policy_text

if TYPE_CHECKING:
    from explaincheck.gui.main_window import MainWindow


class PolicyPresenter:
    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def choose(self) -> None:
        from explaincheck.gui.adapters.policy_controller import FILTER

        path, _ = QFileDialog.getOpenFileName(self.window, "Open policy", "", FILTER)
        if path:
            self.open_policy(path)

    def open_policy(self, path: str, default: str = "uniform") -> asyncio.Task:
        """Attach the policy at ``path`` to the open model (states it leaves out: ``default``)."""
        return self.window.tasks.start(self._open(path, default), "open policy")

    async def _open(self, path: str, default: str) -> None:
        from explaincheck.gui.adapters.policy_controller import load_policy

        window = self.window
        if window.model.oracle is None or window.model.environment is None:
            window.statusBar().showMessage("Open a model before its policy.", 8000)
            return
        try:
            attached = await load_policy(window.model.oracle, path, default)
        except Exception as error:  # a bad row: one line, the model stays as it was
            window.errors.append(str(error))
            window.statusBar().showMessage(f"Cannot load the policy: {error}", 15000)
            return
        self.show_policy(attached, Path(path).name, default)

    def show_policy(self, attached: OracleResult, name: str, default: str) -> None:
        """Hand the oracle with a policy attached to every view and say its value loss."""
        window = self.window
        assert window.model.environment is not None
        window.model.oracle = attached
        window.model_presenter.oracle_ready(attached, window.model.environment)
        from explaincheck.gui.presenters.workbench_wiring import loaded_policy_chooser

        window.workbench.simulator.set_loaded_policy(*loaded_policy_chooser(attached))
        chain = policy_chain(attached)
        assert chain is not None
        value = chain.state(chain.initial).value
        filled = len(chain.policy.defaulted)
        window.statusBar().showMessage(
            policy_text(name, value, chain.value_loss, filled, default), 15000
        )

    def update_report(self) -> asyncio.Task | None:
        """The Report tab's value-loss table for the open model (loaded and stored policies)."""
        window = self.window
        oracle = window.model.oracle
        if oracle is None:
            return None

        async def fill() -> None:
            from explaincheck.gui.adapters.policy_controller import policy_loss_table
            from explaincheck.gui.adapters.selfcheck import selfcheck_table

            rows = list(window.results.rows)
            table = await policy_loss_table(oracle, rows)
            checked = await selfcheck_table(oracle, rows)
            if oracle is window.model.oracle:
                window.report_view.policy_loss.set_table(table)
                window.report_view.policy_loss.selfcheck.set_table(checked)

        return window.tasks.start(fill(), "policy value loss")

"""File › Open policy…: a policy table attached to the open model's oracle, handed to every
view (graph, inspector, Campaign and Report tabs, Workbench simulator), and the Report tab's
value-loss table of the loaded and stored policies."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import policy_chain
from explaincheck.core.workspace.events import Event
from explaincheck.core.workspace.presentation.window_text import policy_text
from explaincheck.gui.adapters.model_controller import ModelController
from explaincheck.gui.adapters.results_data import ResultsData
from explaincheck.gui.presenters.notices import Notices
from explaincheck.gui.support.tasks import Tasks
from explaincheck.gui.views.policy_report import PolicyLossBox


class PolicyPresenter:
    """Given the model it attaches policies to, the results whose stored policies it tables
    and the Report tab's table. ``attached(oracle, environment)`` fires with the oracle that
    carries a new policy: the window hands it to every view."""

    def __init__(
        self,
        model: ModelController,
        results: ResultsData,
        policy_loss: PolicyLossBox,
        tasks: Tasks,
        notices: Notices,
        parent: QWidget,
    ) -> None:
        self.model, self.results, self.policy_loss = model, results, policy_loss
        self.tasks, self.notices, self.parent = tasks, notices, parent
        self.pending: str | None = None  # ``gui --policy FILE``: opened with the oracle
        self.attached = Event("policy attached")

    def model_ready(self, oracle: OracleResult, _environment: Environment) -> None:
        """A new oracle: the policy asked for on the command line follows, then the table."""
        if self.pending and policy_chain(oracle) is None:
            path, self.pending = self.pending, None
            self.open_policy(path)
        self.update_report()

    def choose(self) -> None:
        from explaincheck.gui.adapters.policy_controller import FILTER

        path, _ = QFileDialog.getOpenFileName(self.parent, "Open policy", "", FILTER)
        if path:
            self.open_policy(path)

    def open_policy(self, path: str, default: str = "uniform") -> asyncio.Task:
        """Attach the policy at ``path`` to the open model (states it leaves out: ``default``)."""
        return self.tasks.start(self._open(path, default), "open policy")

    async def _open(self, path: str, default: str) -> None:
        from explaincheck.gui.adapters.policy_controller import load_policy

        if self.model.oracle is None or self.model.environment is None:
            self.notices.say("Open a model before its policy.", 8000)
            return
        try:
            attached = await load_policy(self.model.oracle, path, default)
        except Exception as error:  # a bad row: one line, the model stays as it was
            self.notices.fail(str(error), f"Cannot load the policy: {error}")
            return
        self.show_policy(attached, Path(path).name, default)

    def show_policy(self, attached: OracleResult, name: str, default: str) -> None:
        """Hand the oracle with a policy attached to every view and say its value loss."""
        assert self.model.environment is not None
        self.model.oracle = attached
        self.attached.emit(attached, self.model.environment)
        chain = policy_chain(attached)
        assert chain is not None
        value = chain.state(chain.initial).value
        filled = len(chain.policy.defaulted)
        self.notices.say(policy_text(name, value, chain.value_loss, filled, default), 15000)

    def update_report(self) -> asyncio.Task | None:
        """The Report tab's value-loss table for the open model (loaded and stored policies)."""
        oracle = self.model.oracle
        if oracle is None:
            return None

        async def fill() -> None:
            from explaincheck.gui.adapters.policy_controller import policy_loss_table
            from explaincheck.gui.adapters.selfcheck import selfcheck_table

            rows = list(self.results.rows)
            table = await policy_loss_table(oracle, rows)
            checked = await selfcheck_table(oracle, rows)
            if oracle is self.model.oracle:
                self.policy_loss.set_table(table)
                self.policy_loss.selfcheck.set_table(checked)

        return self.tasks.start(fill(), "policy value loss")

"""File › Ask an LLM for its policy…: the window's side of ``gui/llm_policy``.

The dialog's request starts the worker; its status lines go to the status bar; the policy it
finds is attached as Open policy… attaches a table (``PolicyPresenter.show_policy``), so the graph,
the State inspector, the Report tab's value-loss table and the Workbench simulator show it; and
the results file is reloaded, so the Results tab has the replies and the Report tab the stored
LLM policy too.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMenu

from explaincheck.core.campaign.policy_questions import DEFAULT_BUDGET
from explaincheck.core.errors import ExplaincheckError
from explaincheck.gui.backend_choices import llm_choices
from explaincheck.gui.llm_policy import (
    AskedResult,
    LlmPolicyController,
    PolicyAsk,
    bare_oracle,
    check_ask,
)
from explaincheck.gui.window_actions import make_action

TIP = (
    "Use an LLM as a policy: ask it the best action state by state as its own choices lead,"
    " and draw the policy it defines with its exact value loss"
)


class LlmPolicyWiring(QObject):
    """The action, the controller and what the window does with their signals."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.controller = LlmPolicyController(self)
        self.last: PolicyAsk | None = None  # the dialog starts from the last request
        self.action = make_action(window, "Ask an LLM for its policy…", None, self.choose, TIP)
        self.action.setEnabled(False)
        window.commands.open_policy.changed.connect(self._update_action)
        for menu in window.commands.open_policy.associatedObjects():
            if isinstance(menu, QMenu):  # File, just after Open policy…
                actions = menu.actions()
                after = actions.index(window.commands.open_policy) + 1
                if after < len(actions):
                    menu.insertAction(actions[after], self.action)
                else:
                    menu.addAction(self.action)
        controller = self.controller
        controller.progress.connect(lambda text: window.statusBar().showMessage(text))
        controller.failed.connect(self._failed)
        controller.stopped.connect(self._stopped)
        controller.finished.connect(self._finished)
        controller.running_changed.connect(self._running_changed)

    @property
    def running(self) -> bool:
        return self.controller.running

    def stop(self) -> None:
        self.controller.stop()

    def _update_action(self) -> None:
        self.action.setEnabled(self.window.commands.open_policy.isEnabled() and not self.running)

    def _running_changed(self, running: bool) -> None:
        self._update_action()
        self.window.commands.stop.setEnabled(running or self.window.campaigns.running)

    # -- asking ------------------------------------------------------------------------------
    def proposed(self) -> PolicyAsk:
        """The dialog's starting point: the last request, else the Campaign tab's first LLM
        and the window's results file."""
        window = self.window
        database = window.results.db_path or window.campaign_view.setup().database
        if self.last is not None:
            return PolicyAsk(self.last.spec, self.last.budget, self.last.default, database)
        llms = window.campaign_view.setup().llms
        return PolicyAsk(llms[0] if llms else "random", DEFAULT_BUDGET, "uniform", database)

    def choose(self) -> None:
        from explaincheck.gui.views.llm_policy_dialog import LlmPolicyDialog

        dialog = LlmPolicyDialog(llm_choices(), self.proposed(), self.window)
        if dialog.exec():
            self.ask(dialog.request())

    def ask(self, ask: PolicyAsk) -> bool:
        """Start asking (False with one line in the status bar when it cannot start)."""
        window = self.window
        oracle, environment = window.model.oracle, window.model.environment
        if oracle is None or environment is None:
            return self._refuse("open a model first")
        if self.running:
            return self._refuse("an LLM is already being asked for its policy")
        if window.campaigns.running:
            return self._refuse("wait for the campaign to finish (or stop it)")
        try:
            check_ask(ask)
        except ExplaincheckError as error:
            return self._refuse(str(error))
        self.last = ask
        model = {
            "constants": window.model.constants,
            "goal_label": window.model.goal_label,
            "unsafe_label": window.model.unsafe_label,
        }
        try:
            self.controller.start(ask, environment, oracle, model, window.backend_settings())
        except (ExplaincheckError, RuntimeError) as error:
            return self._refuse(str(error))
        window.statusBar().showMessage(f"Asking {ask.spec} for its policy…")
        return True

    def _refuse(self, text: str) -> bool:
        self._failed(text)
        return False

    # -- results -----------------------------------------------------------------------------
    def _failed(self, text: str) -> None:
        self.window.errors.append(text)
        self.window.statusBar().showMessage(f"Cannot ask for the policy: {text}", 15000)

    def _stopped(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 15000)
        if self.last is not None:  # the replies stored before Stop
            self.window.open_database(os.path.expanduser(self.last.database))

    def _finished(self, result: AskedResult) -> None:
        window = self.window
        current = window.model.oracle
        if current is None or bare_oracle(current).model.content_hash != result.attached.base_hash:
            self._failed("the model changed while its policy was asked; ask again")
            return
        window.tasks.start(self._show(result), "show the LLM's policy")

    async def _show(self, result: AskedResult) -> None:
        """Reload the results file (its replies, the stored LLM policy), then attach the policy
        (the value-loss table is filled last, from the reloaded rows)."""
        await self.window.open_database(result.database)
        found = result.asked
        self.window.policy.show_policy(
            result.attached, f"of {found.llm} ({len(found.asked)} states asked)", result.default
        )

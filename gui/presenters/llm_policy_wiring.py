"""File › Ask an LLM for its policy…: the window's side of ``gui/adapters/llm_policy.py``.

The dialog's request starts the worker; its status lines go to the status bar; the policy it
finds is attached as Open policy… attaches a table (``PolicyPresenter.show_policy``), so the graph,
the State inspector, the Report tab's value-loss table and the Workbench simulator show it; and
the results file is reloaded, so the Results tab has the replies and the Report tab the stored
LLM policy too. It is given what it uses (``LlmPolicyParts``, ``Notices``), never the window
(issue 36).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu

from explaincheck.core.campaign.policy_questions import DEFAULT_BUDGET
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.gui.adapters.backend_choices import llm_choices
from explaincheck.gui.adapters.campaign_controller import CampaignController
from explaincheck.gui.adapters.llm_policy import (
    AskedResult,
    LlmPolicyController,
    PolicyAsk,
    bare_oracle,
    check_ask,
)
from explaincheck.gui.adapters.model_controller import ModelController
from explaincheck.gui.presenters.notices import Notices
from explaincheck.gui.presenters.window_actions import make_action
from explaincheck.gui.support.tasks import Tasks


@dataclass(frozen=True)
class LlmPolicyParts:
    """What asking an LLM for its policy uses of the window."""

    model: ModelController  # the open model it is asked on
    campaigns: CampaignController  # one run at a time: a campaign blocks it
    open_policy: QAction  # its menu and its enabling, which the new action follows
    stop: QAction  # enabled while asking
    first_llm: Callable[[], str | None]  # the Campaign tab's first LLM
    database: Callable[[], str]  # the open results file, else the Campaign tab's
    backend_settings: Callable[[], BackendSettings]
    open_database: Callable[[str], Awaitable[Any]]  # reload the results file
    show_policy: Callable[[OracleResult, str, str], None]  # attach it like Open policy…
    tasks: Tasks


TIP = (
    "Use an LLM as a policy: ask it the best action state by state as its own choices lead,"
    " and draw the policy it defines with its exact value loss"
)


class LlmPolicyWiring(QObject):
    """The action, the controller and what the window does with their signals."""

    def __init__(self, parts: LlmPolicyParts, notices: Notices, window: QMainWindow) -> None:
        """``window``: the action's owner and the dialog's parent (a plain ``QMainWindow``)."""
        super().__init__(window)
        self.parts = parts
        self.notices = notices
        self.window = window
        self.controller = LlmPolicyController(self)
        self.last: PolicyAsk | None = None  # the dialog starts from the last request
        self.action = make_action(window, "Ask an LLM for its policy…", None, self.choose, TIP)
        self.action.setEnabled(False)
        open_policy = parts.open_policy
        open_policy.changed.connect(self._update_action)
        for menu in open_policy.associatedObjects():
            if isinstance(menu, QMenu):  # File, just after Open policy…
                actions = menu.actions()
                after = actions.index(open_policy) + 1
                if after < len(actions):
                    menu.insertAction(actions[after], self.action)
                else:
                    menu.addAction(self.action)
        controller = self.controller
        controller.progress.connect(lambda text: notices.say(text))
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
        self.action.setEnabled(self.parts.open_policy.isEnabled() and not self.running)

    def _running_changed(self, running: bool) -> None:
        self._update_action()
        self.parts.stop.setEnabled(running or self.parts.campaigns.running)

    # -- asking ------------------------------------------------------------------------------
    def proposed(self) -> PolicyAsk:
        """The dialog's starting point: the last request, else the Campaign tab's first LLM
        and the window's results file."""
        database = self.parts.database()
        if self.last is not None:
            return PolicyAsk(
                self.last.spec, self.last.budget, self.last.default, database, self.last.selfcheck
            )
        return PolicyAsk(self.parts.first_llm() or "random", DEFAULT_BUDGET, "uniform", database)

    def choose(self) -> None:
        from explaincheck.gui.views.llm_policy_dialog import LlmPolicyDialog

        dialog = LlmPolicyDialog(llm_choices(), self.proposed(), self.window)
        if dialog.exec():
            self.ask(dialog.request())

    def ask(self, ask: PolicyAsk) -> bool:
        """Start asking (False with one line in the status bar when it cannot start)."""
        model = self.parts.model
        oracle, environment = model.oracle, model.environment
        if oracle is None or environment is None:
            return self._refuse("open a model first")
        if self.running:
            return self._refuse("an LLM is already being asked for its policy")
        if self.parts.campaigns.running:
            return self._refuse("wait for the campaign to finish (or stop it)")
        try:
            check_ask(ask)
        except ExplaincheckError as error:
            return self._refuse(str(error))
        self.last = ask
        opened = {
            "constants": model.constants,
            "goal_label": model.goal_label,
            "unsafe_label": model.unsafe_label,
            "property": model.property_spec,  # the Model panel's property ("": the goal's)
        }
        try:
            self.controller.start(ask, environment, oracle, opened, self.parts.backend_settings())
        except (ExplaincheckError, RuntimeError) as error:
            return self._refuse(str(error))
        self.notices.say(f"Asking {ask.spec} for its policy…")
        return True

    def _refuse(self, text: str) -> bool:
        self._failed(text)
        return False

    # -- results -----------------------------------------------------------------------------
    def _failed(self, text: str) -> None:
        self.notices.fail(text, f"Cannot ask for the policy: {text}")

    def _stopped(self, text: str) -> None:
        self.notices.say(text, 15000)
        if self.last is not None:  # the replies stored before Stop
            self.parts.open_database(os.path.expanduser(self.last.database))

    def _finished(self, result: AskedResult) -> None:
        current = self.parts.model.oracle
        if current is None or bare_oracle(current).model.content_hash != result.attached.base_hash:
            self._failed("the model changed while its policy was asked; ask again")
            return
        self.parts.tasks.start(self._show(result), "show the LLM's policy")

    async def _show(self, result: AskedResult) -> None:
        """Reload the results file (its replies, the stored LLM policy), then attach the policy
        (the value-loss table is filled last, from the reloaded rows)."""
        await self.parts.open_database(result.database)
        found = result.asked
        self.parts.show_policy(
            result.attached, f"of {found.llm} ({len(found.asked)} states asked)", result.default
        )

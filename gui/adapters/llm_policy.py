"""Ask an LLM for its policy from the window: ``explaincheck policy`` on a worker thread.

Why a thread of its own (as a campaign's): the questions run through a ``CampaignSession`` whose
SQLite store must stay on the thread that opened it, and solving the induced chain (in exact
rationals) is CPU work; the GUI thread only hears Qt signals, which queue across threads. The
replies go into the window's results file exactly as ``policy --db`` stores them, so asking
again resumes and a prompt asked before is not asked again. Stop cancels the session: the
replies stored so far stay, no policy is attached.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal

from explaincheck.core.campaign.session import BackendSettings, CampaignSession
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import PolicyOracle, with_policy
from explaincheck.gui.support.session_thread import SessionThread

if TYPE_CHECKING:
    from explaincheck.core.campaign.plan import Campaign
    from explaincheck.core.campaign.progress import ProgressEvents
    from explaincheck.core.workspace.selfcheck import SelfCheckRun


@dataclass(frozen=True)
class PolicyAsk:
    """What the dialog asks for: the LLM, the state budget, the default and the results file."""

    spec: str
    budget: int = 100
    default: str = "uniform"
    database: str = "policy.sqlite"
    selfcheck: bool = False  # then ask it about its own policy (``explaincheck selfcheck``)


@dataclass(frozen=True)
class AskedResult:
    """The policy the LLM defined, attached to the oracle it was asked on."""

    attached: PolicyOracle
    asked: Any  # core.campaign.policy_questions.AskedPolicy
    database: str
    default: str


def check_ask(ask: PolicyAsk) -> None:
    """One line (``ExplaincheckError``) for a spec or budget the run would refuse."""
    from explaincheck.core.backends.registry import parse_spec

    if not ask.spec.strip():
        raise ExplaincheckError("name the LLM to ask, e.g. random, oracle or local:gemma3-270m")
    parse_spec(ask.spec)
    if ask.budget < 1:
        raise ExplaincheckError(f"the budget must be at least 1 state (got {ask.budget})")


def bare_oracle(oracle: OracleResult) -> OracleResult:
    """The model's oracle without a loaded policy (the LLM is asked about the model itself)."""
    from explaincheck.gui.adapters.policy_controller import oracle_without_policy

    return oracle_without_policy(oracle) if isinstance(oracle, PolicyOracle) else oracle


def status_line(spec: str, asked: int, batch: int, replies: int) -> str:
    """The status bar while asking: the round's replies and the states asked before it."""
    return (
        f"Asking {spec} for its policy: {asked + replies} states answered,"
        f" {batch - replies} more in this round…"
    )


class LlmPolicyController(SessionThread):
    """One LLM-as-policy run at a time; signals arrive on the GUI thread."""

    progress = Signal(str)  # a status line
    finished = Signal(object)  # AskedResult
    stopped = Signal(str)  # one line: what is stored, how to go on
    failed = Signal(str)  # one line

    def start(
        self,
        ask: PolicyAsk,
        environment: Environment,
        oracle: OracleResult,
        model: dict[str, str],
        backends: BackendSettings,
    ) -> None:
        """Ask ``ask.spec`` for its policy on ``oracle``'s model (``model``: the constants and
        labels it was opened with), storing the replies in ``ask.database``."""
        if self._running:
            raise RuntimeError("an LLM is already being asked for its policy")
        check_ask(ask)
        self._launch(
            self._thread_main,
            (ask, environment, bare_oracle(oracle), model, backends),
            "explaincheck-llm-policy",
        )

    # -- worker thread ---------------------------------------------------------------------
    def _thread_main(
        self, ask: Any, environment: Any, oracle: Any, model: Any, backends: Any
    ) -> None:
        try:
            result = asyncio.run(self._run(ask, environment, oracle, model, backends))
        except Exception as error:  # said in the status bar, never a crash
            text = str(error).strip().splitlines()
            self._emit(self.failed, text[0] if text else type(error).__name__)
        else:
            if isinstance(result, AskedResult):
                self._emit(self.finished, result)
            else:
                self._emit(self.stopped, result)
        finally:
            self._detach()

    async def _run(
        self,
        ask: PolicyAsk,
        environment: Environment,
        oracle: OracleResult,
        model: dict[str, str],
        backends: BackendSettings,
    ) -> AskedResult | str:
        from explaincheck.core.campaign.plan import Campaign
        from explaincheck.core.campaign.policy_questions import ask_policy
        from explaincheck.core.campaign.progress import ProgressEvents
        from explaincheck.gui.adapters.campaign_controller import results_path

        campaign = Campaign(
            environment=environment.id or environment.model_path,
            llms=(ask.spec,),
            categories=("best_action",),
            budget=ask.budget,
            constants=model.get("constants") or None,
            goal_label=None if model.get("property") else model.get("goal_label") or None,
            unsafe_label=model.get("unsafe_label") or None,
            property_text=model.get("property") or None,  # it names its own target
        )
        database = results_path(ask.database)
        spec = campaign.llms[0]
        seen = {"asked": 0, "batch": 0, "replies": 0, "errors": 0}
        reason = [""]

        with CampaignSession.open(database, backends) as session:  # on this thread (SQLite)
            self._attach(session)

            def on_round(asked: int, batch: int) -> None:
                if seen["replies"] and seen["errors"] == seen["replies"]:
                    session.cancel()  # not one reply in a whole round: the LLM does not answer
                seen.update(asked=asked, batch=batch)
                self._emit(self.progress, status_line(spec, asked, batch, 0))

            def on_reply(progress: Any) -> None:
                if progress.last is not None:
                    seen["replies"] += 1
                    if progress.last.verdict == "error":
                        seen["errors"] += 1
                        reason[0] = progress.last.reason
                replies = progress.done + progress.errors
                self._emit(self.progress, status_line(spec, seen["asked"], seen["batch"], replies))

            events = ProgressEvents()
            events.subscribe(on_reply)
            if ask.selfcheck:
                checked = await self._selfcheck(
                    session, campaign, environment, oracle, ask, on_round, events
                )
                found = checked.asked if checked is not None else None
            else:
                found = await ask_policy(
                    session,
                    campaign,
                    environment,
                    oracle,
                    budget=ask.budget,
                    default=ask.default,
                    on_round=on_round,
                    events=events,
                )
            if seen["replies"] and seen["errors"] == seen["replies"]:
                first = reason[0].strip().splitlines()
                raise ExplaincheckError(
                    f"{spec} gave no reply ({first[0] if first else 'no reason given'})"
                )
            if found is None:  # the self-check was stopped between or within its steps
                return (
                    f"Stopped the self-check of {spec}: its replies so far are stored in"
                    f" {database}; ask again to go on from there"
                )
            if session.cancelled:
                return (
                    f"Stopped asking {spec} for its policy: {len(found.asked)} states answered"
                    f" are stored in {database}; ask again to go on from there"
                )
        default = "uniform" if ask.selfcheck else ask.default  # the self-check's, as the CLI's
        # the policy view's Self-check box is filled from the reloaded rows (gui/selfcheck.py)
        return AskedResult(with_policy(oracle, found.chain), found, database, default)

    async def _selfcheck(
        self,
        session: CampaignSession,
        campaign: Campaign,
        environment: Environment,
        oracle: OracleResult,
        ask: PolicyAsk,
        on_round: Callable[[int, int], None],
        events: ProgressEvents,
    ) -> SelfCheckRun | None:
        """The three steps of ``explaincheck selfcheck`` (the policy's default: uniform, as
        the command's); each step is said in the status bar."""
        from explaincheck.core.workspace.selfcheck import run_selfcheck

        spec = campaign.llms[0]

        def on_step(step: str, questions: int) -> None:
            said = {
                "act": f"Self-check of {spec}: asking for its policy…",
                "say": f"Self-check of {spec}: {questions} say questions at its states…",
                "explain": f"Self-check of {spec}: {questions} questions about its policy"
                " and the two controls…",
            }
            self._emit(self.progress, said[step])

        return await run_selfcheck(
            session,
            campaign,
            environment,
            oracle,
            budget=ask.budget,
            on_step=on_step,
            on_round=on_round,
            events=events,
        )

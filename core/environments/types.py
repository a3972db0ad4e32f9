"""The wording of an environment: how its states and actions read for an LLM and for humans.

An ``Environment`` pairs a PRISM model (plus constants and labels) with words. Built-in ones come
from ``environments/<id>/environment.toml`` (and an optional ``describe.py``); any other PRISM file
gets generic wording built from the model itself (see ``generic.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from explaincheck.core.oracle.types import OracleRequest, StateFacts

# describe(state) -> one or more sentences saying where the agent is and what it sees.
StateDescriber = Callable[[StateFacts], str]


@dataclass(frozen=True)
class Environment:
    """A model with words. ``id`` is None for a user's PRISM file without an environment.toml."""

    id: str | None
    title: str
    description: str  # one paragraph for humans (GUI, reports)
    model_path: str
    constants: str  # default constants, PRISM style "N=4,p=0.5"
    goal_label: str
    unsafe_label: str
    task: str  # the task description the LLM reads at the top of every prompt
    action_meanings: dict[str, str]  # action name -> what it does (including randomness)
    describe: StateDescriber  # how a state reads in words
    folder: str | None = None
    # state variable -> its name for people ("r" -> "row"), in the order to show valuations
    variables: dict[str, str] = field(default_factory=dict)

    def request(self, **overrides: Any) -> OracleRequest:
        """The oracle request for this environment (constants/labels overridable)."""
        args: dict[str, Any] = dict(
            model_path=self.model_path,
            constants=self.constants,
            goal_label=self.goal_label,
            unsafe_label=self.unsafe_label,
        )
        args.update(overrides)
        return OracleRequest(**args)

    def describe_action(self, action: str) -> str:
        meaning = self.action_meanings.get(action)
        return f"{action}: {meaning}" if meaning else action

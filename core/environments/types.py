"""The wording of an environment: how its states and actions read for an LLM and for humans.

An ``Environment`` pairs a PRISM model (plus constants and labels) with words. Built-in ones come
from ``environments/<id>/environment.toml`` (and an optional ``describe.py``); any other PRISM file
gets generic wording built from the model itself (see ``generic.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from explaincheck.core.oracle.property import (
    Property,
    label_name,
    resolve_property,
    without_constants,
)
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
    # the model's own properties by name (``[[properties]]`` of environment.toml, or a .props
    # file beside a bare model), worded; ``--property NAME`` picks one
    properties: dict[str, Property] = field(default_factory=dict)
    # rewards block name -> how it adds up, in words (``[rewards]``, or the block's own text)
    rewards: dict[str, str] = field(default_factory=dict)

    def request(self, **overrides: Any) -> OracleRequest:
        """The oracle request for this environment (constants/labels overridable). A
        ``property`` names the goal set too: its target is the goal the oracle's facts read
        (bottlenecks, the goal states)."""
        args: dict[str, Any] = dict(
            model_path=self.model_path,
            constants=self.constants,
            goal_label=self.goal_label,
            unsafe_label=self.unsafe_label,
        )
        args.update(overrides)
        prop = args.get("property")
        if prop is not None:
            args["goal_label"] = prop.goal_text
        return OracleRequest(**args)

    def resolve_property(self, spec: str, constants: str = "") -> tuple[Property, str]:
        """``--property SPEC`` on this model, worded (``worded``), and the ``--const`` text left
        for the model (constants a property file declares are its own)."""
        found = resolve_property(spec, constants=constants, named=self.properties)
        kept = without_constants(constants, found.property_constants)
        return self.worded(found.property), kept

    def worded(self, prop: Property) -> Property:
        """``prop`` with this environment's words where it has none: the reward's unit and how
        it adds up (``rewards``); a target that is this environment's goal reads "the goal"."""
        reward_words = prop.reward_words
        if prop.is_reward and not reward_words:
            name = prop.reward if prop.reward is not None else next(iter(self.rewards), "")
            reward_words = self.rewards.get(name, "")
        target_words = prop.target_words
        if not target_words and label_name(prop.target) == self.goal_label:
            target_words = "the goal"
        return replace(prop, reward_words=reward_words, target_words=target_words)

    def describe_action(self, action: str) -> str:
        meaning = self.action_meanings.get(action)
        return f"{action}: {meaning}" if meaning else action

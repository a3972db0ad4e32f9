"""The property in plain words, written once per form: what every question asks about.

Why one place: each category asks its question in three wordings, and each names the quantity
it is about. Written in each category, a new form of property (an expected time, a deadline,
"avoid until") would need every question rewritten; here each form is one phrase, and the
categories put it into their sentences (``PropertyWords.quantity``, ``.aim``, ``.best``, ...).

* ``Pmax=? [F φ]``: "the probability of eventually reaching the goal" (the questions of every
  earlier round, kept word for word: ``reaches_goal``, so stored campaigns resume and their
  prompts' hashes stay).
* ``Pmin=?`` of it: the same quantity, "as small as possible".
* ``[φ U ψ]``: "the probability of reaching ψ without first entering ¬φ".
* ``[F<=k φ]``: "the probability of reaching φ within the steps left" (each state says its
  steps left: ``prompt_text.steps_left_line``).
* ``R{"r"}min|max=? [F φ]``: "the expected number of steps until reaching φ" (the reward's
  unit from the environment, else from the rewards block's name).

The target reads "the goal" when it is the goal label, an environment's words where its
``[[properties]]`` give them (``target``, ``unit``), else the formula itself ("a state labelled
"all_delivered"", "a state where s1=12 & s2=12"). An infinite expected reward reads "∞ (never
reaches the goal for sure)"; numbers elsewhere are plain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from explaincheck.core.oracle.property import (
    BOUNDED,
    MAX,
    REWARD,
    UNTIL,
    Property,
    label_name,
    negated,
)
from explaincheck.core.oracle.types import OracleResult

# what a rewards block's name reads as when the environment gives no unit
_UNITS = {
    "steps": "number of steps",
    "step": "number of steps",
    "moves": "number of moves",
    "time": "time",
    "hours": "number of hours",
    "cost": "cost",
    "energy": "energy used",
    "collisions": "number of collisions",
    "rounds": "number of rounds",
}
GOAL_LABEL = "goal"


@dataclass(frozen=True)
class PropertyWords:
    """How the questions about one oracle's property say it."""

    prop: Property
    goal_label: str = GOAL_LABEL  # the label that reads "the goal"
    unsafe_label: str = "unsafe"  # the label that reads "an unsafe state"

    @property
    def reaches_goal(self) -> bool:
        """``Pmax=? [F φ]``: the questions keep the words of every earlier round."""
        return self.prop.reaches_goal

    @property
    def maximising(self) -> bool:
        return self.prop.direction == MAX

    @property
    def is_reward(self) -> bool:
        return self.prop.kind == REWARD

    @cached_property
    def target(self) -> str:
        """The target set as a noun: "the goal", "a state labelled "done"", or the words of
        the environment."""
        return self.prop.target_words or self.set_noun(self.prop.target)

    def set_noun(self, formula: str) -> str:
        name = label_name(formula)
        if name == self.goal_label:
            return "the goal"
        if name == self.unsafe_label:
            return "an unsafe state (a failure as described in the task)"
        if name is not None:
            return f'a state labelled "{name}"'
        return f"a state where {formula.strip()}"

    @cached_property
    def avoided(self) -> str:
        """The states ``[φ U ψ]`` avoids, as a noun (empty for the other forms)."""
        return self.set_noun(negated(self.prop.stay)) if self.prop.stay else ""

    @cached_property
    def unit(self) -> str:
        """What the reward counts: "number of steps", "time", an environment's unit."""
        if self.prop.unit_words:
            return self.prop.unit_words
        name = self.prop.reward
        if name is None:
            return "total reward"
        return _UNITS.get(name.lower(), f'total "{name}" reward')

    @cached_property
    def quantity(self) -> str:
        """The property's number in words, once per form."""
        kind = self.prop.kind
        if kind == REWARD:
            return f"the expected {self.unit} until reaching {self.target}"
        if kind == UNTIL:
            return (
                f"the probability of reaching {self.target} without first entering {self.avoided}"
            )
        if kind == BOUNDED:
            return f"the probability of reaching {self.target} within the steps left"
        return f"the probability of eventually reaching {self.target}"

    @cached_property
    def success(self) -> str:
        """What a successful run does, as a verb phrase: "reaches the goal", "reaches the goal
        within the steps left", "reaches ψ without first entering ¬φ"."""
        kind = self.prop.kind
        if kind == UNTIL:
            return f"reaches {self.target} without first entering {self.avoided}"
        if kind == BOUNDED:
            return f"reaches {self.target} within the steps left"
        return f"reaches {self.target}"

    @property
    def aim(self) -> str:
        """How the agent acts: to make the quantity as large or as small as possible."""
        return "as large as possible" if self.maximising else "as small as possible"

    @property
    def acting(self) -> str:
        """ "when the agent acts to make it as small as possible" (after the quantity)."""
        return f"when the agent acts to make it {self.aim}"

    @property
    def sentence(self) -> str:
        """The property in one phrase: "the expected number of steps until reaching the goal,
        when the agent acts to make it as small as possible"."""
        return f"{self.quantity}, {self.acting}"

    @property
    def best(self) -> str:
        """The superlative of a better value: "highest" (maximising) or "lowest"."""
        return "highest" if self.maximising else "lowest"

    @property
    def worst(self) -> str:
        return "lowest" if self.maximising else "highest"

    @property
    def better(self) -> str:
        """The comparative of a better value: "higher" or "lower"."""
        return "higher" if self.maximising else "lower"

    @property
    def symbol(self) -> str:
        """How reasons name V: "Pmax[F goal]", "Rmin[F "done"]"."""
        head = "R" if self.is_reward else "P"
        return f"{head}{self.prop.direction}"

    def value_text(self, value: float | None) -> str:
        """A value for a reason or a table: 4 significant digits, ∞ in words."""
        if value is None:
            return "n/a"
        if math.isinf(value):
            return f"∞ (never reaches {self.target} for sure)"
        return f"{value:.4g}"


def dead_end_words(words: PropertyWords) -> str:
    """What a dead end is under the property, as a clause: "the goal can no longer be reached
    (probability 0), whatever the agent does" (``value_scale.failing_value``'s value)."""
    if words.is_reward:
        return (
            f"{words.target} is not reached for sure, whatever the agent does, so"
            f" {words.quantity} is infinite"
        )
    if words.maximising:
        return f"{words.quantity} is 0, whatever the agent does"
    return f"{words.quantity} is 1, whatever the agent does"


def words_of(oracle: OracleResult) -> PropertyWords:
    """The words of ``oracle``'s property. A label named "goal" reads "the goal" (the built-in
    environments' tasks describe it); any other target is named by its label or formula, since
    the goal label of a property's oracle is its target, whatever the task calls a goal."""
    return PropertyWords(oracle.prop, GOAL_LABEL, oracle.model.unsafe_label)

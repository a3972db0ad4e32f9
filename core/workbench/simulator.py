"""Step through a model: choose the action (or let a chooser), choose or sample the outcome.

A ``Chooser`` is anything callable with a state id that returns an action name or a
distribution over action names: the optimal policy (``optimal_chooser``), a loaded policy
(issue 24's ``core/policy/`` plugs in through ``policy_chooser``), or an LLM asked for the best
action (the GUI's simulator controller). Sampling is seeded per step (seed, step number), so
the same seed and the same choices give the same path however often the user goes back and
forward.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workbench.transitions import Number, Transitions

Chooser = Callable[[int], str | Mapping[str, float]]
NO_ACTION = "(no action)"  # how StateFacts.successors names an unlabelled choice


def optimal_chooser(oracle: OracleResult) -> Chooser:
    """The optimal scheduler's action (A* when several tie: the scheduler's own pick)."""

    def choose(state: int) -> str:
        facts = oracle.state(state)
        if facts.optimal_action is None:
            return next(iter(facts.successors), NO_ACTION)
        return facts.optimal_action

    return choose


def policy_chooser(policy: Mapping[int, str | Mapping[str, float]]) -> Chooser:
    """A loaded policy as a chooser: {state id: action or {action: probability}}."""

    def choose(state: int) -> str | Mapping[str, float]:
        if state not in policy:
            raise ExplaincheckError(f"the policy says nothing about state {state}")
        return policy[state]

    return choose


@dataclass(frozen=True)
class Step:
    state: int
    action: str
    successor: int
    probability: float  # P(successor | state, action)
    exact: Fraction | None  # the same, exactly, when the exact engine applies
    sampled: bool  # the outcome was drawn (else chosen by the user)
    chosen_by: str  # "user", "optimal", "policy", "llm", ...


class Simulation:
    """A path from a start state, with back, forward and reset."""

    def __init__(
        self,
        oracle: OracleResult,
        start: int | None = None,
        seed: int = 0,
        transitions: Transitions | None = None,
    ) -> None:
        self.oracle = oracle
        self.seed = seed
        self.transitions = transitions
        self.start = oracle.model.initial if start is None else start
        self.steps: list[Step] = []
        self.cursor = 0  # steps[:cursor] are the path; the rest can be redone with forward

    # -- where we are ----------------------------------------------------------------------
    @property
    def current(self) -> int:
        return self.steps[self.cursor - 1].successor if self.cursor else self.start

    @property
    def path(self) -> list[int]:
        return [self.start] + [step.successor for step in self.steps[: self.cursor]]

    @property
    def taken(self) -> list[Step]:
        return self.steps[: self.cursor]

    def probability(self) -> float:
        """The path's probability given its actions: the product of its steps'."""
        result = 1.0
        for step in self.taken:
            result *= step.probability
        return result

    def exact_probability(self) -> Fraction | None:
        result = Fraction(1)
        for step in self.taken:
            if step.exact is None:
                return None
            result *= step.exact
        return result

    def actions(self) -> list[str]:
        return list(self.oracle.state(self.current).successors)

    def outcomes(self, action: str) -> dict[int, float]:
        return dict(self.oracle.state(self.current).successors.get(action, {}))

    # -- moving ----------------------------------------------------------------------------
    def _rng(self, purpose: str) -> random.Random:
        return random.Random(f"{self.seed}:{self.cursor}:{purpose}")

    def resolve(self, choice: str | Mapping[str, float]) -> str:
        """An action from a chooser's answer (a distribution is sampled, seeded)."""
        if isinstance(choice, str):
            return choice
        names = [a for a, p in choice.items() if p > 0]
        if not names:
            raise ExplaincheckError("the chooser gave no action with positive probability")
        weights = [float(choice[a]) for a in names]
        return self._rng("action").choices(names, weights)[0]

    def step(
        self,
        action: str | None = None,
        outcome: int | None = None,
        chooser: Chooser | None = None,
        chosen_by: str = "user",
    ) -> Step:
        """Take one step: ``action`` (or the chooser's), to ``outcome`` (or sampled)."""
        if action is None:
            if chooser is None:
                raise ExplaincheckError("choose an action or a chooser")
            action = self.resolve(chooser(self.current))
        state = self.current
        outcomes = self.outcomes(action)
        if not outcomes:
            raise ExplaincheckError(f"state {state} has no action {action!r}")
        sampled = outcome is None
        if outcome is None:
            targets = sorted(outcomes)
            outcome = self._rng("outcome").choices(targets, [outcomes[t] for t in targets])[0]
        elif outcome not in outcomes:
            raise ExplaincheckError(f"{action!r} cannot lead from state {state} to {outcome}")
        exact = None
        if self.transitions is not None and self.transitions.exact:
            name = None if action == NO_ACTION else action
            found: Number = self.transitions.probability(state, name, outcome)
            exact = Fraction(found) if found else None
        made = Step(state, action, outcome, outcomes[outcome], exact, sampled, chosen_by)
        del self.steps[self.cursor :]
        self.steps.append(made)
        self.cursor += 1
        return made

    def run(self, chooser: Chooser, steps: int, chosen_by: str = "policy") -> None:
        """Up to ``steps`` sampled steps with the chooser's actions, stopping in a goal, an
        unsafe or an absorbing state."""
        for _ in range(steps):
            facts = self.oracle.state(self.current)
            if facts.is_goal or facts.is_unsafe or not facts.successors:
                return
            if all(set(d) == {facts.id} for d in facts.successors.values()):
                return
            self.step(chooser=chooser, chosen_by=chosen_by)

    def back(self) -> bool:
        if self.cursor == 0:
            return False
        self.cursor -= 1
        return True

    def forward(self) -> bool:
        if self.cursor >= len(self.steps):
            return False
        self.cursor += 1
        return True

    def reset(self, start: int | None = None) -> None:
        if start is not None:
            self.start = start
        self.steps.clear()
        self.cursor = 0

"""The value loss of a policy that chose only some states: the interval over every choice at the
others.

Why: an LLM asked for its policy within a budget (or whose reply named no action) leaves states
that a default fills. The loss of the completed policy is then partly the default's: the oracle
answerer, asked 10 of Frozen Lake's 11 decision states, "lost" 42/629 by the uniform choice at
the eleventh. What the LLM's own choices decide is the interval of the loss over every choice at
the states it did not choose: the least loss (the best continuation there) and the greatest (the
worst). It is one number exactly when the unchosen states do not matter (none is reachable under
its own choices, or every choice there is as good as every other).

Both ends are the reachability values of a small MDP: the chosen states follow the policy, the
unchosen ones may take any labelled action. The greatest value is found by policy iteration
(switching only on a strict gain: a greedy fixed point of the max operator is its least fixed
point, the optimum); the least one after removing the states from which some choice avoids the
goal forever (value 0), by the same iteration switching on a strict loss. Each policy is solved
as the induced chain is (``chain.reach_probability``: exact fractions where the oracle is exact).

Under a property (``oracle.prop``, docs/method.md §14) the loss is in its direction: for a
maximal probability the best choices give the greatest value, for a minimal one the least. An
until's run ends where φ fails (``chain.ended``, value 0) and a deadline's states carry the
steps left, so both are reachability values as above. An expected reward is not bounded here
(its least and greatest totals need their own infinite cases): ``bounded`` is False and both
ends are the loss with the policy's own completion.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.chain import (
    Number,
    _successors,
    _value_star,
    ended,
    induced_rows,
    is_exact,
    reach_probability,
    solve_policy,
)
from explaincheck.core.policy.types import Policy

ROUNDS = 1000  # policy-iteration rounds at most (each switches at least one state)
GAIN = 1e-12  # a float gain below this is no gain (exact oracles compare fractions)


@dataclass(frozen=True)
class LossInterval:
    """The loss V*(s0) − V(s0) over every choice at ``free`` (the states the policy did not
    choose): ``low`` with the best choices there, ``high`` with the worst."""

    low: Number
    high: Number
    free: tuple[int, ...]  # decision states with a free choice
    exact: bool
    bounded: bool = True  # False: an expected reward, both ends the completed policy's loss

    @property
    def point(self) -> bool:
        """Whether the unchosen states cannot change the loss."""
        return self.low == self.high


def loss_interval(oracle: OracleResult, policy: Policy, free: Iterable[int]) -> LossInterval:
    """The loss of ``policy`` on ``oracle`` over every choice at the states in ``free`` (its
    choices there are ignored); the other states keep ``policy``'s distribution."""
    exact = is_exact(oracle)
    open_states = tuple(
        sorted(
            s
            for s in set(free)
            if len(oracle.state(s).q) >= 2 and not ended(oracle, oracle.state(s))
        )
    )
    prop = oracle.prop
    if prop.is_reward:
        chain = solve_policy(oracle, policy)
        loss = chain.value_loss_exact if chain.value_loss_exact is not None else chain.value_loss
        return LossInterval(loss, loss, open_states, exact, bounded=False)
    initial = oracle.state(oracle.model.initial)
    optimum = _value_star(initial, exact)
    if not open_states:
        value = _values(oracle, policy, {}, exact)[initial.id]
        loss = optimum - value if prop.maximising else value - optimum
        return LossInterval(loss, loss, (), exact)
    highest = _iterate(oracle, policy, open_states, exact, _start_high(oracle, open_states), 1)
    avoid = _avoiding(oracle, policy, open_states)
    lowest = _iterate(
        oracle, policy, open_states, exact, _start_low(oracle, open_states, avoid), -1
    )
    high, low = highest[initial.id], lowest[initial.id]
    if prop.maximising:
        return LossInterval(optimum - high, optimum - low, open_states, exact)
    return LossInterval(low - optimum, high - optimum, open_states, exact)


def _values(
    oracle: OracleResult, policy: Policy, choice: dict[int, str], exact: bool
) -> dict[int, Number]:
    """V(s) = P [F goal] when ``policy`` is followed, with ``choice`` at its states."""
    one = Fraction(1)
    chosen = replace(policy, choices={**policy.choices, **{s: {a: one} for s, a in choice.items()}})
    goal = {s.id for s in oracle.states if s.is_goal}
    return reach_probability(induced_rows(oracle, chosen, exact), len(oracle.states), goal, exact)[
        0
    ]


def _iterate(
    oracle: OracleResult,
    policy: Policy,
    open_states: tuple[int, ...],
    exact: bool,
    choice: dict[int, str],
    sign: int,
) -> dict[int, Number]:
    """Policy iteration over the open states' actions, towards the largest values (``sign``
    1) or the smallest (-1), switching a state only on a strict gain."""
    zero: Number = Fraction(0) if exact else 0.0
    for _ in range(ROUNDS):
        values = _values(oracle, policy, choice, exact)
        switched = False
        for state_id in open_states:
            successors = _successors(oracle.state(state_id), exact)
            q = {
                a: sum((p * values[t] for t, p in successors[a].items()), zero)
                for a in oracle.state(state_id).q
            }
            current = q[choice[state_id]]
            target = max(q, key=lambda a: sign * q[a])
            gain = sign * (q[target] - current)
            if gain > (0 if exact else GAIN):
                choice[state_id] = target
                switched = True
        if not switched:
            return values
    raise RuntimeError("policy iteration over the unchosen states did not settle")


def _start_high(oracle: OracleResult, open_states: tuple[int, ...]) -> dict[int, str]:
    """At each open state an action of the greatest Q* (the optimal scheduler's under a
    maximum, the usual answer, so few rounds; any start reaches the greatest values)."""
    found = {}
    for state_id in open_states:
        state = oracle.state(state_id)
        if oracle.prop.maximising and state.optimal_action in state.q:
            found[state_id] = str(state.optimal_action)
        else:
            found[state_id] = (state.best if oracle.prop.maximising else state.worst)[0]
    return found


def _start_low(
    oracle: OracleResult, open_states: tuple[int, ...], avoid: set[int]
) -> dict[int, str]:
    """At an open state that can avoid the goal forever, an action that stays among such
    states (its value is then 0, the least); elsewhere an action of the least Q*."""
    found = {}
    for state_id in open_states:
        state = oracle.state(state_id)
        staying = [a for a, d in state.successors.items() if a in state.q and set(d) <= avoid]
        least = (state.worst if oracle.prop.maximising else state.best)[0]
        found[state_id] = staying[0] if state_id in avoid and staying else least
    return found


def _avoiding(oracle: OracleResult, policy: Policy, open_states: tuple[int, ...]) -> set[int]:
    """The states from which some choice at the open states keeps the run away from the goal
    forever (the greatest set where each state has a choice whose successors all stay in it)."""
    free = set(open_states)
    choices: dict[int, list[set[int]]] = {}
    for state in oracle.states:
        if state.is_goal:
            continue
        if ended(oracle, state):  # an until's run ends outside φ: it stays away from the goal
            choices[state.id] = [{state.id}]
            continue
        if state.id in free:
            choices[state.id] = [set(state.successors[a]) for a in state.q]
            continue
        distribution = policy.distribution(state.id)
        if distribution:
            support = {t for a, w in distribution.items() if w for t in state.successors[a]}
            choices[state.id] = [support]
        else:  # no labelled action: the closing self-loop (or its one unlabelled choice)
            choices[state.id] = [set(d) for d in list(state.successors.values())[:1]] or [set()]
    inside = set(choices)
    changed = True
    while changed:
        changed = False
        for state_id in list(inside):
            if not any(targets <= inside for targets in choices[state_id]):
                inside.discard(state_id)
                changed = True
    return inside

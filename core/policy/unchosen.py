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
steps left, so both are reachability values as above.

An expected reward (``R min/max [F φ]``) is the total until φ, infinite on a run that may miss φ
(as Storm counts it). Its greatest total over the free choices is infinite where some choice
there can keep the run from φ with positive probability (graph analysis: the states that can
avoid φ forever, ``_avoiding``, reached from s0); otherwise every choice reaches φ almost surely
and policy iteration towards the greatest total settles as above. Its least total is infinite
where no choice reaches φ almost surely from s0; otherwise policy iteration towards the least
total starts from choices that do (each free state's step closer to φ inside the states that can
still make sure of it, ``_sure_start``), so every total it compares is finite. Where that
iteration does not settle (zero-reward cycles can trap it) or V*(s0) is infinite, ``bounded`` is
False and both ends are the loss with the policy's own completion, as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from fractions import Fraction

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.chain import (
    Number,
    Rows,
    _rewards,
    _successors,
    _value_star,
    ended,
    expected_reward,
    induced_rows,
    is_exact,
    policy_rewards,
    reach_probability,
    reaching,
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
    initial = oracle.state(oracle.model.initial)
    optimum = _value_star(initial, exact)
    if prop.is_reward:
        found = _reward_interval(oracle, policy, open_states, exact, optimum)
        if found is not None:
            return found
        chain = solve_policy(oracle, policy)
        loss = chain.value_loss_exact if chain.value_loss_exact is not None else chain.value_loss
        return LossInterval(loss, loss, open_states, exact, bounded=False)
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


def _reward_interval(
    oracle: OracleResult,
    policy: Policy,
    open_states: tuple[int, ...],
    exact: bool,
    optimum: Number,
) -> LossInterval | None:
    """The loss interval under an expected reward (module docstring); None where it cannot be
    bounded (V*(s0) infinite, or an iteration that does not settle)."""
    if math.isinf(optimum):
        return None
    start = oracle.model.initial
    if not open_states:
        total = _totals(oracle, policy, {}, exact)[start]
        return _reward_loss(oracle, total, total, open_states, exact, optimum)
    inf = math.inf
    try:
        if start in _can_reach(oracle, policy, open_states, _avoiding(oracle, policy, open_states)):
            greatest: Number = inf
        else:
            found = _iterate(
                oracle, policy, open_states, exact, _start_high(oracle, open_states), 1, _totals
            )
            greatest = found[start]
        sure = _sure_start(oracle, policy, open_states)
        if sure is None:
            least: Number = inf
        else:
            least = _iterate(oracle, policy, open_states, exact, sure, -1, _totals)[start]
    except RuntimeError:
        return None
    return _reward_loss(oracle, least, greatest, open_states, exact, optimum)


def _reward_loss(
    oracle: OracleResult,
    least: Number,
    greatest: Number,
    open_states: tuple[int, ...],
    exact: bool,
    optimum: Number,
) -> LossInterval:
    """The loss interval from the least and the greatest total, in the property's direction."""
    if oracle.prop.maximising:
        return LossInterval(optimum - greatest, optimum - least, open_states, exact)
    return LossInterval(least - optimum, greatest - optimum, open_states, exact)


def _chosen(policy: Policy, choice: dict[int, str]) -> Policy:
    one = Fraction(1)
    return replace(policy, choices={**policy.choices, **{s: {a: one} for s, a in choice.items()}})


def _values(
    oracle: OracleResult, policy: Policy, choice: dict[int, str], exact: bool
) -> dict[int, Number]:
    """V(s) = P [F goal] when ``policy`` is followed, with ``choice`` at its states."""
    chosen = _chosen(policy, choice)
    goal = {s.id for s in oracle.states if s.is_goal}
    return reach_probability(induced_rows(oracle, chosen, exact), len(oracle.states), goal, exact)[
        0
    ]


def _totals(
    oracle: OracleResult, policy: Policy, choice: dict[int, str], exact: bool
) -> dict[int, Number]:
    """E [total reward until the goal] when ``policy`` is followed, with ``choice`` at its
    states: infinite where the run may miss the goal (``chain.expected_reward``)."""
    chosen = _chosen(policy, choice)
    goal = {s.id for s in oracle.states if s.is_goal}
    rows = induced_rows(oracle, chosen, exact)
    rewards = policy_rewards(oracle, chosen, exact)
    return expected_reward(rows, len(oracle.states), goal, rewards, exact)[0]


def _step(oracle: OracleResult, state_id: int, exact: bool) -> dict[str, Number]:
    """What one step of each action collects at ``state_id`` (0 under a probability)."""
    if not oracle.prop.is_reward:
        return {}
    return _rewards(oracle.state(state_id), exact)


Steps = dict[int, list[tuple[str | None, set[int]]]]  # per state: (action, successors) options


def _steps(oracle: OracleResult, policy: Policy, open_states: tuple[int, ...]) -> Steps:
    """Where each state outside the goal may step: at a free state one option per action; at
    another the policy's support (or its one unlabelled choice, the closing self-loop: action
    None); where an until's run ended outside φ, a self-loop (it stays away from the goal)."""
    free = set(open_states)
    steps: Steps = {}
    for state in oracle.states:
        if state.is_goal:
            continue
        if ended(oracle, state):
            steps[state.id] = [(None, {state.id})]
        elif state.id in free:
            steps[state.id] = [(a, set(state.successors[a])) for a in state.q]
        elif distribution := policy.distribution(state.id):
            support = {t for a, w in distribution.items() if w for t in state.successors[a]}
            steps[state.id] = [(None, support)]
        else:
            first = [set(d) for d in list(state.successors.values())[:1]] or [set()]
            steps[state.id] = [(None, first[0])]
    return steps


def _can_reach(
    oracle: OracleResult, policy: Policy, open_states: tuple[int, ...], targets: set[int]
) -> set[int]:
    """The states from which some choice at the free states reaches ``targets`` with positive
    probability (``chain.reaching`` on every option's successors)."""
    rows: Rows = {
        state_id: {t: 1.0 for _, successors in options for t in successors}
        for state_id, options in _steps(oracle, policy, open_states).items()
    }
    return reaching(rows, len(oracle.states), targets)


def _sure_start(
    oracle: OracleResult, policy: Policy, open_states: tuple[int, ...]
) -> dict[int, str] | None:
    """Choices at the free states under which the run from s0 reaches the goal almost surely
    (None: no choice does). The states that can make sure of the goal are the greatest set
    from which the goal stays reachable while every step stays inside; within it each free
    state takes an action that stays inside and steps closer to the goal (by layers)."""
    steps = _steps(oracle, policy, open_states)
    goal = {s.id for s in oracle.states if s.is_goal}
    inside = set(steps) | goal
    while True:
        layer = _layers(steps, goal, inside)
        kept = goal | set(layer)
        if kept == inside:
            break
        inside = kept
    if oracle.model.initial not in inside:
        return None
    found = {}
    for state_id in open_states:
        if state_id in layer:
            found[state_id] = str(layer[state_id])
        else:  # outside the sure states: unreachable from s0 under these choices
            found[state_id] = next(iter(oracle.state(state_id).q))
    return found


def _layers(steps: Steps, goal: set[int], inside: set[int]) -> dict[int, str | None]:
    """The states that reach the goal by steps that stay in ``inside`` (an attractor), each
    with the action that first brings it closer (None: a state without a choice)."""
    reached: dict[int, str | None] = {}
    closer = set(goal)
    changed = True
    while changed:
        changed = False
        for state_id, options in steps.items():
            if state_id in reached or state_id not in inside:
                continue
            for action, targets in options:
                if targets <= inside and targets & closer:
                    reached[state_id] = action
                    changed = True
                    break
        closer = goal | set(reached)
    return reached


def _iterate(
    oracle: OracleResult,
    policy: Policy,
    open_states: tuple[int, ...],
    exact: bool,
    choice: dict[int, str],
    sign: int,
    evaluate: Callable[[OracleResult, Policy, dict[int, str], bool], dict[int, Number]] = _values,
) -> dict[int, Number]:
    """Policy iteration over the open states' actions, towards the largest values (``sign``
    1) or the smallest (-1), switching a state only on a strict gain; ``evaluate``: the
    probability of the goal (``_values``) or the total reward until it (``_totals``)."""
    zero: Number = Fraction(0) if exact else 0.0
    for _ in range(ROUNDS):
        values = evaluate(oracle, policy, choice, exact)
        switched = False
        for state_id in open_states:
            successors = _successors(oracle.state(state_id), exact)
            step = _step(oracle, state_id, exact)
            q = {
                a: step.get(a, zero) + sum((p * values[t] for t, p in successors[a].items()), zero)
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
    choices = {
        state_id: [successors for _, successors in options]
        for state_id, options in _steps(oracle, policy, open_states).items()
    }
    inside = set(choices)
    changed = True
    while changed:
        changed = False
        for state_id in list(inside):
            if not any(targets <= inside for targets in choices[state_id]):
                inside.discard(state_id)
                changed = True
    return inside

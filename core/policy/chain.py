"""The Markov chain a policy induces on the model, solved exactly where the oracle is exact.

Why here and not in Storm: the oracle already holds every state's successors (as exact
fractions under the exact method), so the induced chain P^π(s, t) = Σ_a π(a|s) P(t|s, a) is
plain data. Reachability under π is decided on the graph first (who cannot reach the goal gets 0
exactly, as the oracle does), then the rest is one linear system: exact Gaussian elimination on
fractions when the oracle is exact, otherwise a sparse LU solve with one step of iterative
refinement (the oracle's own solver, so the same residual guarantee as V), whose residual is
reported.

The goal is absorbing in the induced chain (the run ends there), so D^π counts unsafe states met
before the goal. Value loss, regret and reach weights follow docs/method.md, "Policy".

**Under a property** (``oracle.prop``): V^π is the property's value of π's chain. ``[F φ]``
and ``[F<=k φ]`` (whose oracle's states already carry the steps left) are the probability of
reaching the target; ``[φ U ψ]`` ends the run also where φ fails (the states the oracle labels
outside ``Property.stay_label``); an expected reward is the expected total of the states'
``rewards`` under π until the target, by the same linear system with the rewards as its right
side, and infinite from every state from which π does not reach the target almost surely
(decided on the chain's graph, exactly). Regret, value loss and the states' shares are in the
property's direction (for a minimum: V^π − V*), so every number is in the property's units, and
the shares still add up to the loss (the performance-difference identity holds for total
rewards as for reachability, wherever V^π(s0) is finite; an infinite loss has no shares).
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Iterable
from fractions import Fraction

import numpy as np
from scipy.sparse import csr_matrix, identity

from explaincheck.core.oracle.columnar import NO_ACTION
from explaincheck.core.oracle.property import MAX, UNTIL
from explaincheck.core.oracle.types import EXACT, OracleResult, StateFacts
from explaincheck.core.oracle.values import _refined_solve
from explaincheck.core.policy.types import Policy, PolicyChain, PolicyState

Number = Fraction | float
Rows = dict[int, dict[int, Number]]


def is_exact(oracle: OracleResult) -> bool:
    """Whether the induced chain can be solved in fractions: an exact oracle whose states carry
    their exact successor probabilities, V and Q (a flawed picture may carry floats only)."""
    return oracle.method == EXACT and all(
        (s.successors_exact or not s.successors)
        and (s.value_exact is not None or s.infinite)
        and (s.q_exact or not s.q or all(math.isinf(q) for q in s.q.values()))
        for s in oracle.states
    )


def _successors(state: StateFacts, exact: bool) -> dict[str, dict[int, Number]]:
    if exact:
        return {
            a: {t: Fraction(p) for t, p in d.items()} for a, d in state.successors_exact.items()
        }
    return {a: dict(d) for a, d in state.successors.items()}


def ended(oracle: OracleResult, state: StateFacts) -> bool:
    """Whether the property's run ends at ``state``: the target, and under ``[φ U ψ]`` a state
    outside φ (the oracle labels φ's states ``Property.stay_label``)."""
    if state.is_goal:
        return True
    prop = oracle.prop
    return prop.kind == UNTIL and prop.stay_label not in state.labels


def induced_rows(oracle: OracleResult, policy: Policy, exact: bool) -> Rows:
    """P^π as rows: goal states (and where the run ends otherwise, ``ended``) absorbing (no
    row), a decision state mixes its actions by π, a state without labelled actions follows its
    one unlabelled choice."""
    rows: Rows = {}
    for state in oracle.states:
        if ended(oracle, state):
            continue
        successors = _successors(state, exact)
        row: dict[int, Number] = defaultdict(lambda: Fraction(0) if exact else 0.0)
        distribution = policy.distribution(state.id)
        if distribution:
            for action, weight in distribution.items():
                p = weight if exact else float(weight)
                for target, q in successors[action].items():
                    row[target] += p * q
        else:
            for choice in successors.values():  # no labelled action: the closing self-loop
                for target, q in choice.items():
                    row[target] += q
                break
        rows[state.id] = {t: p for t, p in row.items() if p}
    return rows


def reaching(rows: Rows, size: int, targets: Iterable[int]) -> set[int]:
    """States with a path (positive probability) to a target."""
    back: dict[int, list[int]] = defaultdict(list)
    for s, row in rows.items():
        for t in row:
            back[t].append(s)
    found = set(targets)
    queue = deque(found)
    while queue:
        t = queue.popleft()
        for s in back[t]:
            if s not in found:
                found.add(s)
                queue.append(s)
    return found


def solve_exact(a: Rows, rhs: dict[int, Number]) -> dict[int, Number]:
    """x with x_s = rhs_s + Σ_t a[s][t] x_t for every s in ``a`` (t over the keys of ``a``), by
    sparse Gaussian elimination in fractions. Every pivot is positive: the system is I − a
    transient part of a stochastic matrix, whose Schur complements stay such M-matrices."""
    rows = {s: dict(row) for s, row in a.items()}
    b = dict(rhs)
    users: dict[int, set[int]] = defaultdict(set)
    for s, row in rows.items():
        for t in row:
            users[t].add(s)
    done: set[int] = set()
    order = list(rows)
    for k in order:
        row = rows[k]
        scale = Fraction(1) / (1 - row.pop(k, 0))
        for t in row:
            row[t] *= scale
        b[k] *= scale
        done.add(k)
        for i in users.pop(k, ()):
            if i in done:
                continue
            other = rows[i]
            c = other.pop(k)
            b[i] += c * b[k]
            for t, v in row.items():
                other[t] = other.get(t, 0) + c * v
                users[t].add(i)
    x: dict[int, Number] = {}
    for k in reversed(order):
        x[k] = b[k] + sum((v * x[t] for t, v in rows[k].items()), Fraction(0))
    return x


def solve_float(a: Rows, rhs: dict[int, Number]) -> tuple[dict[int, Number], float]:
    """The same system in floats (sparse LU + one refinement step) and its residual."""
    index = list(a)
    if not index:
        return {}, 0.0
    position = {s: i for i, s in enumerate(index)}
    data, cols, ptr = [], [], [0]
    for s in index:
        for t, v in a[s].items():
            data.append(float(v))
            cols.append(position[t])
        ptr.append(len(data))
    n = len(index)
    matrix = csr_matrix((data, cols, ptr), shape=(n, n))
    b = np.array([float(rhs[s]) for s in index])
    x = np.clip(_refined_solve(identity(n) - matrix, b), 0.0, None)
    residual = float(np.max(np.abs(x - matrix @ x - b), initial=0.0))
    return {s: float(x[i]) for i, s in enumerate(index)}, residual


def reach_probability(
    rows: Rows, size: int, targets: set[int], exact: bool
) -> tuple[dict[int, Number], float]:
    """P^π [F targets] for every state: targets 1, states without a path 0, the rest solved."""
    zero = Fraction(0) if exact else 0.0
    one = Fraction(1) if exact else 1.0
    live = reaching(rows, size, targets) - targets
    a = {s: {t: p for t, p in rows[s].items() if t in live} for s in live}
    rhs = {s: sum((p for t, p in rows[s].items() if t in targets), zero) for s in live}
    if exact:
        solved, residual = solve_exact(a, rhs), 0.0
    else:
        solved, residual = solve_float(a, rhs)
    values = {s: (one if s in targets else solved.get(s, zero)) for s in range(size)}
    return values, residual


def sure_to_reach(rows: Rows, size: int, targets: set[int]) -> set[int]:
    """States from which the chain reaches ``targets`` with probability 1: those that cannot
    reach a state from which no path leads to them (graph analysis, exact)."""
    reach = reaching(rows, size, targets)
    lost = set(range(size)) - reach
    return set(range(size)) - reaching(rows, size, lost)


def expected_reward(
    rows: Rows, size: int, targets: set[int], rewards: dict[int, Number], exact: bool
) -> tuple[dict[int, Number], float]:
    """E^π[total reward until ``targets``] for every state: 0 on the targets, infinite where
    the chain does not reach them almost surely, else x = r + P x over the rest."""
    zero = Fraction(0) if exact else 0.0
    sure = sure_to_reach(rows, size, targets) - targets
    a = {s: {t: p for t, p in rows[s].items() if t in sure} for s in sure}
    rhs = {s: rewards.get(s, zero) for s in sure}
    if exact:
        solved, residual = solve_exact(a, rhs), 0.0
    else:
        solved, residual = solve_float(a, rhs)
    values: dict[int, Number] = {}
    for s in range(size):
        values[s] = zero if s in targets else solved.get(s, math.inf)
    return values, residual


def policy_rewards(oracle: OracleResult, policy: Policy, exact: bool) -> dict[int, Number]:
    """r^π(s) = Σ_a π(a|s) · r(s, a): what one step from s collects under π (a state without
    labelled actions: its one unlabelled choice's reward)."""
    found: dict[int, Number] = {}
    for state in oracle.states:
        if ended(oracle, state):
            continue
        rewards = _rewards(state, exact)
        distribution = policy.distribution(state.id)
        if distribution:
            total = sum(
                ((w if exact else float(w)) * rewards.get(a, 0) for a, w in distribution.items()),
                Fraction(0) if exact else 0.0,
            )
        else:
            total = rewards.get(NO_ACTION, Fraction(0) if exact else 0.0)
        found[state.id] = total
    return found


def _rewards(state: StateFacts, exact: bool) -> dict[str, Number]:
    if exact and state.rewards_exact:
        return {a: Fraction(r) for a, r in state.rewards_exact.items()}
    return {a: float(r) for a, r in state.rewards.items()}


def expected_visits(
    rows: Rows, transient: set[int], initial: int, exact: bool
) -> dict[int, Number]:
    """Expected visits of each state from ``initial`` while the run stays in ``transient``; for
    a state outside it, the probability that the run leaves ``transient`` into it."""
    zero = Fraction(0) if exact else 0.0
    if initial not in transient:
        return {initial: Fraction(1) if exact else 1.0}
    # x_t = [t = s0] + Σ_s x_s P(s, t) over transient s: the transposed system
    a: Rows = {t: {} for t in transient}
    for s in transient:
        for t, p in rows[s].items():
            if t in transient:
                a[t][s] = p
    rhs = {t: (Fraction(1) if exact else 1.0) if t == initial else zero for t in transient}
    x = solve_exact(a, rhs) if exact else solve_float(a, rhs)[0]
    visits = dict(x)
    for s in transient:
        for t, p in rows[s].items():
            if t not in transient:
                visits[t] = visits.get(t, zero) + x[s] * p
    return visits


def _q_star(state: StateFacts, exact: bool) -> dict[str, Number]:
    if exact:  # an infinite Q has no exact text: it stays math.inf
        return {
            a: Fraction(state.q_exact[a]) if a in state.q_exact else q for a, q in state.q.items()
        }
    return dict(state.q)


def _value_star(state: StateFacts, exact: bool) -> Number:
    if exact and state.value_exact is not None:
        return Fraction(state.value_exact)
    return state.value


def _apart(better: Number, worse: Number) -> Number:
    """``better − worse`` where ∞ − ∞ (both infinite) is 0, not NaN."""
    if better == worse:
        return better - better if not math.isinf(better) else 0.0
    return better - worse


def solve_policy(oracle: OracleResult, policy: Policy) -> PolicyChain:
    """V^π, D^π, Q^π, regret, expected visits and shares of the loss for every state, for the
    oracle's property (module docstring)."""
    prop = oracle.prop
    exact = is_exact(oracle)
    size = len(oracle.states)
    rows = induced_rows(oracle, policy, exact)
    goal = {s.id for s in oracle.states if s.is_goal}
    if prop.is_reward:
        value, residual = expected_reward(
            rows, size, goal, policy_rewards(oracle, policy, exact), exact
        )
        transient = {s for s in rows if not math.isinf(value[s])}
    else:
        value, residual = reach_probability(rows, size, goal, exact)
        transient = {s for s in rows if value[s] > 0}
    danger: dict[int, Number] | None = None
    if oracle.has_danger:
        unsafe = {s.id for s in oracle.states if s.is_unsafe}
        danger, residual_d = reach_probability(rows, size, unsafe, exact)
        residual = max(residual, residual_d)
    initial = oracle.model.initial
    finite = not math.isinf(value[initial])
    visits = expected_visits(rows, transient, initial, exact) if finite else {}
    zero = Fraction(0) if exact else 0.0
    maximising = prop.direction == MAX
    defaulted = set(policy.defaulted)
    states = []
    for state in oracle.states:
        successors = _successors(state, exact)
        distribution = policy.distribution(state.id)
        step = _rewards(state, exact) if prop.is_reward else {}
        q = {a: float(_q_of(successors[a], value, step.get(a, zero), zero)) for a in state.q}
        v_star = _value_star(state, exact)
        q_star = _q_star(state, exact)
        chosen = sum((w * q_star[a] for a, w in distribution.items()), zero)
        regret = (
            (_apart(v_star, chosen) if maximising else _apart(chosen, v_star))
            if distribution and not ended(oracle, state)
            else zero
        )
        # stranded: π never reaches the target from here, where acting better would
        stranded = state.id not in transient and not state.is_goal
        seen = visits.get(state.id, zero)
        share = seen * (v_star if stranded and maximising and not prop.is_reward else regret)
        states.append(
            PolicyState(
                id=state.id,
                action=dict(distribution),
                value=float(value[state.id]),
                danger=float(danger[state.id]) if danger is not None else None,
                q=q,
                optimal_value=float(v_star),
                regret=float(regret),
                visits=float(seen),
                share=float(share) if seen else 0.0,
                stranded=stranded and _could_do_better(v_star, prop.is_reward, maximising),
                defaulted=state.id in defaulted,
                value_exact=_exact_or_none(value[state.id], exact),
                danger_exact=danger[state.id] if exact and danger is not None else None,  # type: ignore[arg-type]
                regret_exact=_exact_or_none(regret, exact),
                share_exact=_exact_or_none(share if seen else zero, exact),
            )
        )
    method = (
        "exact rationals (Gaussian elimination on the induced chain)"
        if exact
        else f"sparse LU with refinement on the induced chain, residual {residual:.1e}"
    )
    return PolicyChain(
        policy, tuple(states), exact, residual, oracle.model.initial, method, prop.direction
    )


def _q_of(
    successors: dict[int, Number], value: dict[int, Number], reward: Number, zero: Number
) -> Number:
    """Q^π(s, a) = r(s, a) + Σ p · V^π(s′), infinite when a successor's V^π is."""
    if any(p and math.isinf(value[t]) for t, p in successors.items()):
        return math.inf
    return reward + sum((p * value[t] for t, p in successors.items()), zero)


def _could_do_better(v_star: Number, reward: bool, maximising: bool) -> bool:
    """Whether a state π strands (never reaches the target) could be left better: V* > 0 for
    a maximal probability, V* finite for a minimal expected reward."""
    if reward:
        return not math.isinf(v_star) if not maximising else False
    return maximising and float(v_star) > 0


def _exact_or_none(value: Number, exact: bool) -> Fraction | None:
    """An exact number of the chain, None for a float chain or an infinite value."""
    if not exact or (isinstance(value, float) and math.isinf(value)):
        return None
    return value  # type: ignore[return-value]

"""Necessity, strength and sufficiency of each factor at each state, from exact oracles.

Pure functions over oracles that are already computed (``intervene.py`` computes them), so the
definitions of docs/method.md ("Why-questions (factors)") can be tested on hand-checked models.
States of different oracles are matched by their valuation: an intervened model numbers its
states differently, and may reach states the factual one does not (and the other way round).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from explaincheck.core.factors.types import (
    MODEL,
    Factor,
    FactorEffect,
    StateFactors,
)
from explaincheck.core.oracle.types import OracleResult, StateFacts

Key = tuple[tuple[str, object], ...]


def valuation_key(state: StateFacts) -> Key:
    return tuple(sorted(state.valuation.items()))


def index(oracle: OracleResult) -> dict[Key, StateFacts]:
    """The oracle's states by valuation."""
    return {valuation_key(s): s for s in oracle.states}


def margin(state: StateFacts, best: tuple[str, ...]) -> float | None:
    """m = min Q(a) over the group ``best`` minus max Q(b) over the other actions, at ``state``.

    None when ``state`` offers other actions than the group's state did (not comparable) or no
    action outside the group."""
    others = [a for a in state.q if a not in best]
    if not others or any(a not in state.q for a in best):
        return None
    return min(state.q[a] for a in best) - max(state.q[b] for b in others)


def best_margin(state: StateFacts, best: tuple[str, ...]) -> float | None:
    """The factual best action's lead at ``state``: max Q over the group ``best`` minus max Q
    over the other actions (>= 0 iff some action of the group is still optimal). None when
    ``state`` lacks an action of the group or has no other action."""
    if not all(a in state.q for a in best):
        return None
    others = [a for a in state.q if a not in best]
    if not others:
        return None
    return max(state.q[a] for a in best) - max(state.q[b] for b in others)


def kept_share(kept: StateFacts, best: tuple[str, ...]) -> float:
    """Seed 002's PS with exact values: the share of the optimal actions at ``kept`` that are
    factually best (a uniform pick among them keeps the decision); 0 when none is."""
    optimal = kept.best or tuple(kept.q)
    return sum(a in best for a in optimal) / len(optimal) if optimal else 0.0


def reached_by_all(state: StateFacts, tables: Iterable[Mapping[Key, StateFacts]]) -> bool:
    """Whether every intervened model (its states by valuation) reaches ``state``."""
    key = valuation_key(state)
    return all(key in table for table in tables)


def decided(state: StateFacts) -> bool:
    """Whether ``state`` has a decision to explain: two or more actions, not all tied."""
    return len(state.q) >= 2 and len(state.best) < len(state.q)


def model_effect(
    factor: Factor,
    state: StateFacts,
    necessity: OracleResult | Mapping[Key, StateFacts],
    sufficiency: OracleResult | Mapping[Key, StateFacts],
) -> FactorEffect | None:
    """The effect of a model factor at ``state``: ``necessity`` is the oracle with the factor
    neutral, ``sufficiency`` the one with every other model factor neutral. None when the state
    is not reachable in one of them or offers other actions there."""
    after = _same_state(state, necessity)
    kept = _same_state(state, sufficiency)
    base = margin(state, state.best)
    if after is None or kept is None or base is None:
        return None
    if set(after.q) != set(state.q) or set(kept.q) != set(state.q):
        return None
    moved = margin(after, state.best)
    lead_after, lead_kept = best_margin(after, state.best), best_margin(kept, state.best)
    if moved is None or lead_after is None or lead_kept is None:
        return None
    share = kept_share(kept, state.best)
    return FactorEffect(
        factor=factor.id,
        necessary=lead_after < 0,
        strength=abs(base - moved),
        sufficient=share >= 1.0,
        best_after=after.best,
        necessity=-lead_after,
        sufficiency=lead_kept,
        changes_best=set(after.best) != set(state.best),
        ps=share,
    )


def state_effect(
    factor: Factor,
    state: StateFacts,
    factual: OracleResult,
    all_neutral: OracleResult | Mapping[Key, StateFacts],
) -> FactorEffect | None:
    """The effect of a state factor (one variable) at ``state``. The alternatives are the
    reachable states that differ from ``state`` only in that variable and offer exactly the
    same actions (``alternatives``); graded necessity = the largest over them of how far the
    factual best action falls behind (necessary iff > 0), strength = the largest margin change,
    ``best_after`` = A* of the alternative with the highest graded necessity. Sufficiency keeps
    the state as it is and neutralises every model factor. Without an alternative: not
    necessary, strength 0, graded necessity minus the factual lead (as if nothing changed)."""
    variable = factor.variable
    base = margin(state, state.best)
    lead = best_margin(state, state.best)
    kept = _same_state(state, all_neutral)
    if variable is None or base is None or lead is None or kept is None:
        return None
    lead_kept = best_margin(kept, state.best)
    if lead_kept is None:
        return None
    strength, necessity, best_after, changes = 0.0, -lead, state.best, False
    for other in alternatives(state, variable, factual):
        moved, lead_other = margin(other, state.best), best_margin(other, state.best)
        if moved is None or lead_other is None:
            continue
        changes = changes or set(other.best) != set(state.best)
        strength = max(strength, abs(base - moved))
        if -lead_other > necessity:
            necessity, best_after = -lead_other, other.best
    share = kept_share(kept, state.best)
    return FactorEffect(
        factor=factor.id,
        necessary=necessity > 0,
        strength=strength,
        sufficient=share >= 1.0,
        best_after=best_after,
        necessity=necessity,
        sufficiency=lead_kept,
        changes_best=changes,
        ps=share,
    )


def state_factors(
    state: StateFacts,
    factors: tuple[Factor, ...],
    factual: OracleResult,
    necessity: Mapping[str, Mapping[Key, StateFacts]],
    sufficiency: Mapping[str, Mapping[Key, StateFacts]],
    all_neutral: Mapping[Key, StateFacts],
) -> StateFactors | None:
    """Every factor's effect at ``state``, or None when the state has no decision to explain or
    some factor's effect is undefined there (the case would have holes in its truth)."""
    if not decided(state):
        return None
    effects = []
    for factor in factors:
        if factor.kind == MODEL:
            found = model_effect(factor, state, necessity[factor.id], sufficiency[factor.id])
        else:
            found = state_effect(factor, state, factual, all_neutral)
        if found is None:
            return None
        effects.append(found)
    base = margin(state, state.best)
    assert base is not None  # decided(state)
    return StateFactors(state.id, base, tuple(effects))


def _same_state(
    state: StateFacts, other: OracleResult | Mapping[Key, StateFacts]
) -> StateFacts | None:
    table = index(other) if isinstance(other, OracleResult) else other
    return table.get(valuation_key(state))


_GROUPS: dict[tuple[int, str], tuple[OracleResult, dict[Key, list[StateFacts]]]] = {}


def alternatives(state: StateFacts, variable: str, oracle: OracleResult) -> list[StateFacts]:
    """The alternatives of a state factor at ``state``: the states of ``oracle`` that differ
    from it only in ``variable`` and offer exactly the same actions (docs/method.md: otherwise
    the strength would partly measure an action becoming available)."""
    return [o for o in _alternatives(state, variable, oracle) if set(o.q) == set(state.q)]


def probe_alternative(state: StateFacts, variable: str, oracle: OracleResult) -> StateFacts | None:
    """The alternative a state factor is probed and shown with: the one where the factual best
    action falls furthest behind (graded necessity), then the largest margin change."""
    base = margin(state, state.best)
    chosen: tuple[tuple[float, float], StateFacts] | None = None
    for other in alternatives(state, variable, oracle):
        moved, lead = margin(other, state.best), best_margin(other, state.best)
        if moved is None or lead is None or base is None:
            continue
        key = (-lead, abs(base - moved))
        if chosen is None or key > chosen[0]:
            chosen = (key, other)
    return None if chosen is None else chosen[1]


def _alternatives(state: StateFacts, variable: str, oracle: OracleResult) -> list[StateFacts]:
    """The states of ``oracle`` equal to ``state`` but in ``variable``. The states are grouped
    by their other variables once per (oracle, variable), so this is linear overall."""
    cached = _GROUPS.get((id(oracle), variable))
    if cached is None or cached[0] is not oracle:
        groups: dict[Key, list[StateFacts]] = {}
        for other in oracle.states:
            groups.setdefault(_rest(other, variable), []).append(other)
        if len(_GROUPS) > 64:
            _GROUPS.clear()
        cached = _GROUPS[(id(oracle), variable)] = (oracle, groups)
    value = state.valuation.get(variable)
    return [
        other
        for other in cached[1].get(_rest(state, variable), [])
        if other.valuation.get(variable) != value
    ]


def _rest(state: StateFacts, variable: str) -> Key:
    return tuple(sorted((k, v) for k, v in state.valuation.items() if k != variable))

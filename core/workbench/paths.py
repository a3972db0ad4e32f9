"""The k most probable paths from a state to the goal under the optimal policy.

Storm's ``ShortestPathsGenerator`` (k shortest paths on −log p) runs on the DTMC that the
optimal policy induces, in an isolated child; the exact probability of each path is the product
of its exact step probabilities where the exact engine applies.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from explaincheck.core.oracle.isolated_call import call_isolated
from explaincheck.core.oracle.storm.teaching import most_probable_paths
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.workbench.transitions import Transitions


@dataclass(frozen=True)
class RankedPath:
    rank: int
    states: tuple[int, ...]
    probability: float
    exact: Fraction | None


def optimal_policy(oracle: OracleResult) -> list[str | None]:
    return [state.optimal_action for state in oracle.states]


def k_most_probable(
    request: OracleRequest,
    oracle: OracleResult,
    start: int,
    k: int = 5,
    transitions: Transitions | None = None,
) -> list[RankedPath]:
    """Up to ``k`` paths from ``start`` that first reach the goal, most probable first."""
    policy = optimal_policy(oracle)
    found = call_isolated(most_probable_paths, request, start, policy, k)
    ranked = []
    for rank, (states, probability) in enumerate(found, 1):
        exact: Fraction | None = None
        if transitions is not None and transitions.exact:
            exact = Fraction(1)
            for a, b in itertools.pairwise(states):
                exact *= Fraction(transitions.probability(a, policy[a], b))
        ranked.append(RankedPath(rank, tuple(states), probability, exact))
    return ranked

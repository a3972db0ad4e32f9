"""A flawed explainer's own factor picture: the factor truth as its flaw sees the model.

A reference explainer with a flaw (``oracle/flawed.py``) answers from a wrong picture of the
MDP. For ``factors`` cases its citations must come from that same picture, not from the true
factor truth: the same interventions are applied, and each intervened model is seen through the
same flaw (``flaw:determinised`` sees no slipping in any version, so neutralising the slip
changes nothing in its eyes and it never finds the slip influential). Where the picture sees no
decision at a case's state (all actions tied in its eyes) or a factor's effect is undefined,
the picture sees no influence: every factor has strength 0 and it cites the first three in
declaration order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from explaincheck.core.factors.intervene import base_request, compute_factor_truth
from explaincheck.core.factors.types import FactorEffect, FactorTruth, StateFactors
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.flawed import Flaw, flawed_oracle
from explaincheck.core.oracle.types import OracleRequest, OracleResult


def plain(oracle: OracleResult) -> OracleResult:
    """``oracle`` without anything attached (the true factor truth is not the picture's)."""
    if type(oracle) is OracleResult and not oracle.attachments:
        return oracle
    found = {f.name: getattr(oracle, f.name) for f in fields(OracleResult)}
    return OracleResult(**{**found, "attachments": {}})


def no_influence(truth: FactorTruth, state: int, best: tuple[str, ...]) -> StateFactors:
    """What a picture that sees no effect at ``state`` says: every factor unnecessary, weight 0."""
    effects = tuple(FactorEffect(f.id, False, 0.0, True, best) for f in truth.factors)
    return StateFactors(state, 0.0, effects)


def flawed_factor_truth(
    truth: FactorTruth,
    true_oracle: OracleResult,
    picture: OracleResult,
    flaw: Flaw,
    compute: Callable[[OracleRequest], OracleResult] | None = None,
) -> FactorTruth:
    """The factor truth of ``picture`` (``flaw``'s picture of ``true_oracle``), defined at every
    state where ``truth`` is, over the same factors (so the schema is the same)."""
    if compute is None:
        compute = compute_oracle

    def seen(request: OracleRequest) -> OracleResult:
        return flawed_oracle(plain(compute(request)), flaw)

    own = compute_factor_truth(truth.factors, plain(picture), base_request(true_oracle), seen)
    same = [f.id for f in own.factors] == [f.id for f in truth.factors]
    states = {
        state: (
            own.states[state]
            if same and state in own.states
            else no_influence(truth, state, picture.state(state).best)
        )
        for state in truth.states
    }
    return FactorTruth(truth.factors, states, own.intervened, truth.dropped, truth.unreachable)

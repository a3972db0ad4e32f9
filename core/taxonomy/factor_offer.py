"""How ``factors`` is offered on request (``Factors.offer``): its cost in model checks, in words.

``factors`` reads "not applicable" on a plain oracle (its truth is computed only when a campaign
asks for it by id, because every model factor costs extra model checks). A front end lets the
user tick it anyway and says beforehand what it costs.
"""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.factors.declare import factors_of
from explaincheck.core.factors.types import MODEL
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import RequestOffer

MIN_FACTORS = 4  # an answer cites three; a fourth makes the choice a choice


def factors_offer(environment: Environment, oracle: OracleResult) -> RequestOffer | None:
    """The offer for this model (reads the environment's declarations); None when it has too
    few factors, so the category stays "not applicable"."""
    factors = factors_of(environment, oracle.model.variables)
    if len(factors) < MIN_FACTORS:
        return None
    model = sum(1 for f in factors if f.kind == MODEL)
    checks = 2 * model + 1 if model else 0
    names = ", ".join(f.id for f in factors)
    return RequestOffer(
        label=f"on request: {checks} extra model checks",
        tooltip=(
            f"Why-questions about {len(factors)} factors ({names}). Not asked by default: the "
            f"exact truth needs {checks} extra model checks of this model with factors "
            "neutralised (each model factor alone, all others, all), run once per campaign "
            "in the isolated child and cached. Tick it to ask."
        ),
    )

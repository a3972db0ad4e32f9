"""What the Campaign tab says about ``factors``: offered on request, with its cost in words.

``factors`` reads "not applicable" on a plain oracle (its truth is computed only when a campaign
asks for it by id, because every model factor costs extra model checks). The Campaign tab lets
the user tick it anyway, and says beforehand what it costs; the behavioural check is a second,
separate opt-in that costs LLM questions.
"""

from __future__ import annotations

from dataclasses import dataclass

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult

MIN_FACTORS = 4  # an answer cites three; a fourth makes the choice a choice

BEHAVIOURAL_TIP = (
    "After the campaign, ask each LLM its decision question again for every factors case: "
    "once plainly and once per factor, on the model with that factor neutralised (or at a "
    "state where it differs). One extra question per factor per case; the report then compares "
    "what the LLM says (cites), does (changes its decision) and what is true (--behavioural)."
)


@dataclass(frozen=True)
class FactorsOffer:
    """The category row's suffix and tooltip when ``factors`` can be ticked on request."""

    label: str
    tooltip: str


def factors_offer(environment: Environment, oracle: OracleResult) -> FactorsOffer | None:
    """The offer for this model (worker thread: reads the environment's declarations); None
    when it has too few factors, so the category stays "not applicable"."""
    from explaincheck.core.factors.declare import factors_of
    from explaincheck.core.factors.types import MODEL

    factors = factors_of(environment, oracle.model.variables)
    if len(factors) < MIN_FACTORS:
        return None
    model = sum(1 for f in factors if f.kind == MODEL)
    checks = 2 * model + 1 if model else 0
    names = ", ".join(f.id for f in factors)
    return FactorsOffer(
        label=f"on request: {checks} extra model checks",
        tooltip=(
            f"Why-questions about {len(factors)} factors ({names}). Not asked by default: the "
            f"exact truth needs {checks} extra model checks of this model with factors "
            "neutralised (each model factor alone, all others, all), run once per campaign "
            "in the isolated child and cached. Tick it to ask."
        ),
    )

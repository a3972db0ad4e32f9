"""What the Campaign tab says about categories asked only on request, and about their follow-up
probes: both from the registered categories (``Category.offer``, ``follow_up_help``), so the
Campaign tab names none of them."""

from __future__ import annotations

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import RequestOffer


def request_offers(environment: Environment, oracle: OracleResult) -> dict[str, RequestOffer]:
    """category id -> how it is offered on request on this model (worker thread: a category
    may read the environment's declarations). Categories with nothing to offer are absent."""
    from explaincheck.core.taxonomy.registry import CATEGORIES

    offers = {cid: found.offer(environment, oracle) for cid, found in CATEGORIES.items()}
    return {cid: offer for cid, offer in offers.items() if offer is not None}


def behavioural_tip() -> str:
    """The tooltip of the Campaign tab's follow-up check box (what ``run --behavioural`` does)."""
    from explaincheck.core.taxonomy.follow_ups import follow_up_help

    text = follow_up_help()
    return f"{text[0].upper()}{text[1:]}. Each costs extra LLM questions (--behavioural)."

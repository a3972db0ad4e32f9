"""What the running campaign's replies cost, for the Campaign tab, and the tab's price and
cost-limit fields read as the run takes them.

Why a meter fed by progress events: the tab sees every graded execution anyway. Prices come
from the prices settings file (``~/.config/explaincheck/prices.toml``) overridden by the tab's
Prices field (``MODEL=IN/OUT`` per million tokens, as ``run --price``), and the per-LLM lines
are ``explaincheck results``' own (``CostTally``), seeded with what the campaign's stored
executions already cost, so the figures shown here are the figures the report gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from explaincheck.core.campaign.cost_limit import check_limit, costed_row
from explaincheck.core.campaign.prices import CostTally, Price, money, parse_price, price_table
from explaincheck.core.errors import ExplaincheckError

PRICES_NAME = "Prices"  # the tab's field names, for its one-line errors
LIMIT_NAME = "Stop at cost"


def default_prices() -> dict[str, Price]:
    """The prices settings file's table ({} when there is none or it cannot be read)."""
    try:
        return price_table()
    except Exception:  # a broken settings file must not stop the window
        return {}


def price_entries(text: str) -> tuple[str, ...]:
    """The Prices field's ``MODEL=IN/OUT`` entries (commas or spaces between them), checked."""
    entries = tuple(part for part in re.split(r"[,;\s]+", text.strip()) if part)
    for entry in entries:
        parse_price(entry, PRICES_NAME)
    return entries


def cost_limit(text: str) -> float | None:
    """The Stop at cost field: empty is no limit."""
    text = text.strip()
    if not text:
        return None
    try:
        return float(text.replace(",", "."))
    except ValueError:
        raise ExplaincheckError(f"{LIMIT_NAME}: {text!r} is not an amount of money") from None


@dataclass(frozen=True)
class CostSettings:
    """The prices and the cost limit a run takes (``given``: the field's entries, kept with the
    campaign as ``run --price`` keeps its own)."""

    prices: dict[str, Price] = field(default_factory=dict)
    limit: float | None = None
    given: tuple[str, ...] = ()
    # the fields' names in the one line that refuses an unpriced model under a limit
    names = (LIMIT_NAME, "MODEL=IN/OUT in the Prices field")

    @classmethod
    def read(cls, prices_text: str, limit_text: str) -> CostSettings:
        """The fields as the run takes them; an ExplaincheckError of one line if unusable."""
        given = price_entries(prices_text)
        prices = {**default_prices(), **dict(parse_price(e, PRICES_NAME) for e in given)}
        hint = "prices in the Prices field"
        limit = check_limit(cost_limit(limit_text), prices, LIMIT_NAME, hint)
        return cls(prices, limit, given)

    def run_options(self) -> dict[str, Any]:
        """The campaign-file keys of these settings (``price``, ``max-cost``)."""
        options: dict[str, Any] = {}
        if self.given:
            options["price"] = list(self.given)
        if self.limit is not None:
            options["max-cost"] = self.limit
        return options


class CostMeter:
    """Tokens of this run's replies, and money per LLM of the campaign (stored replies too)."""

    def __init__(self, prices: dict[str, Price] | None = None) -> None:
        self.prices = default_prices() if prices is None else prices
        self.reset()

    def reset(self) -> None:
        self.tokens = 0
        self.tally = CostTally()

    def start(self, prices: dict[str, Price], tally: CostTally) -> None:
        """A run begins with these prices; ``tally``: what its stored executions cost."""
        self.prices = prices
        self.tokens = 0
        self.tally = tally

    @property
    def cost(self) -> float | None:
        return self.tally.total if self.tally.per_llm else None

    def add(self, record: Any) -> None:
        if record is None or record.cached:
            return
        self.tokens += (record.prompt_tokens or 0) + (record.completion_tokens or 0)
        self.tally.add(costed_row(record, self.prices))

    def text(self) -> str:
        """ "" before any token or cost; else "N tokens" and the cost when a price applies."""
        parts = [f"{self.tokens} tokens"] if self.tokens else []
        if self.cost is not None:
            parts.append(f"cost {money(self.cost)}")
        return ", ".join(parts)

    def lines(self) -> list[str]:
        """The cost per LLM and of the campaign, as ``explaincheck results`` prints them."""
        return self.tally.lines()

"""What the running campaign's replies cost, for the Campaign tab's progress line.

Why a meter fed by progress events: the tab sees every graded execution anyway, and prices come
from the same settings file as ``explaincheck results`` (``~/.config/explaincheck/prices.toml``)
so the figure shown here is the figure the report gives.
"""

from __future__ import annotations

from typing import Any

from explaincheck.core.analysis.prices import Price, money, price_table, row_cost


def default_prices() -> dict[str, Price]:
    """The prices settings file's table ({} when there is none or it cannot be read)."""
    try:
        return price_table()
    except Exception:  # a broken settings file must not stop the window
        return {}


class CostMeter:
    """Tokens and money of the replies of one run."""

    def __init__(self, prices: dict[str, Price] | None = None) -> None:
        self.prices = default_prices() if prices is None else prices
        self.reset()

    def reset(self) -> None:
        self.tokens = 0
        self.cost: float | None = None

    def add(self, record: Any) -> None:
        if record is None or record.cached:
            return
        self.tokens += (record.prompt_tokens or 0) + (record.completion_tokens or 0)
        cost = row_cost(
            {
                "llm": record.llm,
                "reply": record.reply,
                "prompt_tokens": record.prompt_tokens,
                "completion_tokens": record.completion_tokens,
            },
            self.prices,
        )
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost

    def text(self) -> str:
        """ "" before any token; else "N tokens" and the cost when a price applies."""
        if not self.tokens:
            return ""
        return f"{self.tokens} tokens" + (
            f", cost {money(self.cost)}" if self.cost is not None else ""
        )

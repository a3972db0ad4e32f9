"""What replies cost in money: a price table (per million prompt and completion tokens) applied
to the stored token counts, per reply, per LLM and per campaign.

Why prices are applied when results are read, not stored per row: prices change and are often
learnt after a run; tokens are the fact, money a view of them. The table used by a run is kept
with its campaign (``run --price``), ``results --price`` overrides it, and a settings file
(``prices.toml``: ``[prices]`` with ``"MODEL" = "IN/OUT"``) gives defaults. A cached reply
costs nothing (it was not generated again); a reply without token counts has no cost (None).

Cached input: a server that took part of a prompt from its prompt cache says how much
(``cached_prompt_tokens``, stored per reply); an optional third price, ``IN/OUT/CACHED``,
prices those tokens apart (hosted APIs discount them). Without it they cost the input price, as
does a reply whose server did not say (the cost is then an upper bound where cached input is
cheaper).
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explaincheck.core.errors import ExplaincheckError

if TYPE_CHECKING:
    import pandas as pd

    from explaincheck.core.store import CampaignRow

PER = 1_000_000  # prices are per million tokens


@dataclass(frozen=True)
class Price:
    """Money per million prompt (input) and completion (output) tokens, and per million cached
    prompt tokens (``cached_prompt``; None: they cost the input price)."""

    prompt: float
    completion: float
    cached_prompt: float | None = None

    def cost(
        self, prompt_tokens: Any, completion_tokens: Any, cached_prompt_tokens: Any = None
    ) -> float | None:
        """The money of one reply; ``cached_prompt_tokens`` are part of ``prompt_tokens``
        (never more than them)."""
        prompt, completion = _count(prompt_tokens) or 0, _count(completion_tokens) or 0
        if not prompt and not completion:
            return None
        cached = min(_count(cached_prompt_tokens) or 0, prompt)
        cached_price = self.prompt if self.cached_prompt is None else self.cached_prompt
        return (
            (prompt - cached) * self.prompt + cached * cached_price + completion * self.completion
        ) / PER

    def stored(self) -> list[float]:
        """As JSON, kept with the campaign: ``[IN, OUT]`` or ``[IN, OUT, CACHED]``."""
        rest = [] if self.cached_prompt is None else [self.cached_prompt]
        return [self.prompt, self.completion, *rest]


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if math.isfinite(value) else None


def _amount(text: Any, where: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ExplaincheckError(f"{where}: {text!r} is not a price") from None
    if not math.isfinite(value) or value < 0:
        raise ExplaincheckError(f"{where}: a price must be a number of 0 or more")
    return value


def parse_price(text: str, name: str = "--price") -> tuple[str, Price]:
    """``MODEL=IN/OUT`` or ``MODEL=IN/OUT/CACHED`` (money per million prompt, completion and
    cached prompt tokens) -> (MODEL, Price); ``name`` is where the text was given, for the
    error."""
    model, equals, amounts = str(text).rpartition("=")
    parts = amounts.split("/")
    if not equals or not model.strip() or len(parts) not in (2, 3):
        raise ExplaincheckError(
            f"{name} {text!r}: use MODEL=IN/OUT or MODEL=IN/OUT/CACHED, e.g."
            " gpt-4o-mini=0.15/0.6 or gpt-4o-mini=0.15/0.6/0.075"
        )
    where = f"{name} {text!r}"
    amounts_given = [_amount(part, where) for part in parts]
    return model.strip(), Price(*amounts_given)


def default_price_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "explaincheck" / "prices.toml"


def load_price_file(path: str | Path) -> dict[str, Price]:
    """The ``[prices]`` table of a settings file: ``"MODEL" = "IN/OUT"`` (or ``"IN/OUT/CACHED"``)
    or ``"MODEL" = {prompt = IN, completion = OUT}`` (and optionally ``cached_prompt = CACHED``)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ExplaincheckError(f"cannot read {path}: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ExplaincheckError(f"{path}: {error}") from None
    table = data.get("prices", {})
    if not isinstance(table, dict):
        raise ExplaincheckError(f"{path}: [prices] must be a table")
    prices = {}
    for model, entry in table.items():
        where = f"{path}: prices.{model}"
        if isinstance(entry, str):
            prices[model] = parse_price(f"{model}={entry}")[1]
        elif isinstance(entry, dict) and {"prompt", "completion"} <= set(entry):
            cached = entry.get("cached_prompt")
            prices[model] = Price(
                _amount(entry["prompt"], where),
                _amount(entry["completion"], where),
                None if cached is None else _amount(cached, where),
            )
        else:
            raise ExplaincheckError(f'{where}: use "IN/OUT" or {{prompt = IN, completion = OUT}}')
    return prices


def price_table(
    given: Iterable[str] = (),
    file: str | Path | None = None,
    stored: Mapping[str, Any] | None = None,
) -> dict[str, Price]:
    """Prices from the settings file (the default one if it exists), then those stored with a
    campaign, then ``--price`` options: later ones win."""
    prices: dict[str, Price] = {}
    path = Path(file) if file else default_price_file()
    if file or path.is_file():
        prices.update(load_price_file(path))
    for model, pair in (stored or {}).items():
        if isinstance(pair, list | tuple) and len(pair) in (2, 3):
            prices[model] = Price(*(_amount(amount, "stored price") for amount in pair))
    for text in given:
        model, price = parse_price(text)
        prices[model] = price
    return prices


def campaign_prices(
    campaigns: Iterable[CampaignRow], given: Iterable[str] = (), file: str | Path | None = None
) -> dict[str, Price]:
    """The prices stored with the campaigns (``CampaignRow``s; later ones win), then the
    settings file and ``given`` (``MODEL=IN/OUT``)."""
    stored: dict[str, Any] = {}
    for campaign in campaigns:
        table = campaign.settings.get("prices")
        if isinstance(table, dict):
            stored.update(table)
    return price_table(given, file, stored)


def stored_form(prices: Mapping[str, Price]) -> dict[str, list[float]]:
    """The table as JSON (kept with the campaign)."""
    return {model: p.stored() for model, p in prices.items()}


def model_of(llm: str) -> str:
    """The model a spec names: ``openai:gpt-4o@http://h/v1`` -> ``gpt-4o``."""
    _, colon, rest = llm.partition(":")
    if not colon:
        return llm
    model, at, url = rest.partition("@")
    return model if at and model and url else rest


def price_for(llm: str, prices: Mapping[str, Price]) -> Price | None:
    """The spec's own entry, else its model's."""
    return prices.get(llm) or prices.get(model_of(llm))


def row_cost(row: Mapping[str, Any], prices: Mapping[str, Price]) -> float | None:
    """The money one execution's reply cost (0 from the cache; None without price or tokens)."""
    price = price_for(str(row.get("llm", "")), prices)
    if price is None or row.get("reply") is None:
        return None
    if row.get("cached"):
        return 0.0
    return price.cost(
        row.get("prompt_tokens"), row.get("completion_tokens"), row.get("cached_prompt_tokens")
    )


def with_costs(rows: list[dict[str, Any]], prices: Mapping[str, Price]) -> list[dict[str, Any]]:
    """The rows with a ``cost`` field each (None where no price applies)."""
    return [{**row, "cost": row_cost(row, prices)} for row in rows]


# The token counts a tally adds up per LLM, in this order.
_TALLIED = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_prompt_tokens")


class CostTally:
    """Money and tokens per LLM of rows that carry a ``cost`` (rows without one are left out),
    added one at a time: a running campaign's figures are ``results``' figures."""

    def __init__(self) -> None:
        self.per_llm: dict[str, float] = {}
        self.tokens: dict[str, list[int]] = {}

    def add(self, row: Mapping[str, Any]) -> None:
        cost = row.get("cost")
        if cost is None:
            return
        llm = str(row.get("llm"))
        self.per_llm[llm] = self.per_llm.get(llm, 0.0) + float(cost)
        counts = self.tokens.setdefault(llm, [0, 0, 0, 0])
        for i, name in enumerate(_TALLIED):
            counts[i] += _count(row.get(name)) or 0

    @property
    def total(self) -> float:
        return sum(self.per_llm.values())

    def lines(self) -> list[str]:
        """One line per LLM with a cost and one for the total (none without a cost)."""
        if not self.per_llm:
            return []
        lines = []
        for llm, cost in self.per_llm.items():
            prompt, completion, reasoning, cached = self.tokens[llm]
            of_cache = f" ({cached} cached)" if cached else ""
            lines.append(
                f"cost {llm}: {money(cost)} ({prompt} prompt{of_cache},"
                f" {completion} completion, {reasoning} reasoning tokens)"
            )
        lines.append(f"cost of the campaign: {money(self.total)}")
        return lines


def cost_lines(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """One line per LLM with a cost and one for the total (rows carry ``cost``)."""
    tally = CostTally()
    for row in rows:
        tally.add(row)
    return tally.lines()


def money(value: float) -> str:
    return f"{value:.4f}" if value < 100 else f"{value:.2f}"


def money_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per LLM and for the campaign: replies with a cost, their tokens and what they cost
    (a DataFrame; empty when no row has a cost)."""
    import pandas as pd

    if "cost" not in results.columns:
        return pd.DataFrame()
    priced = results[results["cost"].notna()]
    if priced.empty:
        return pd.DataFrame()

    def total(part: pd.DataFrame, column: str) -> int:
        return int(pd.to_numeric(part.get(column, pd.Series(dtype=float))).fillna(0).sum())

    rows = []
    for llm, part in [*priced.groupby("llm", sort=True), ("campaign", priced)]:
        rows.append(
            {
                "llm": llm,
                "replies": len(part),
                "prompt_tokens": total(part, "prompt_tokens"),
                "cached_prompt_tokens": total(part, "cached_prompt_tokens"),
                "completion_tokens": total(part, "completion_tokens"),
                "reasoning_tokens": total(part, "reasoning_tokens"),
                "cost": round(float(part["cost"].astype(float).sum()), 6),
            }
        )
    return pd.DataFrame(rows).set_index("llm")

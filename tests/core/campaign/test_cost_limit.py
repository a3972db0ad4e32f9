"""The cost limit's checks (``check_limit``) and the running tally of cost per LLM
(``CostTally``) that the command line, the API and the Campaign tab share."""

from __future__ import annotations

import pytest

from explaincheck.core.campaign.cost_limit import check_limit
from explaincheck.core.campaign.prices import CostTally, Price, cost_lines
from explaincheck.core.errors import ExplaincheckError

PRICES = {"m": Price(1, 2)}


def test_check_limit_names_the_front_ends_words():
    assert check_limit(None, {}) is None  # no limit needs no prices
    assert check_limit(0.5, PRICES) == 0.5
    with pytest.raises(ExplaincheckError, match=r"^--max-cost needs prices: give --price"):
        check_limit(1.0, {})
    with pytest.raises(ExplaincheckError, match=r"^Stop at cost must be a positive amount"):
        check_limit(0.0, PRICES, "Stop at cost")
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ExplaincheckError, match="positive amount"):
            check_limit(bad, PRICES)


def test_tally_added_row_by_row_is_results_cost_lines():
    rows = [
        {"llm": "a", "cost": 0.5, "prompt_tokens": 10, "completion_tokens": 2},
        {"llm": "b", "cost": None, "prompt_tokens": 99},  # no price: left out
        {
            "llm": "a",
            "cost": 0.25,
            "prompt_tokens": 5,
            "completion_tokens": 1,
            "reasoning_tokens": 3,
        },
        {"llm": "c", "cost": 0.0, "prompt_tokens": 7, "completion_tokens": 7},  # cached
    ]
    tally = CostTally()
    assert tally.lines() == [] and tally.total == 0
    for row in rows:
        tally.add(row)
    assert tally.total == pytest.approx(0.75)
    assert tally.lines() == cost_lines(rows)
    assert tally.lines() == [
        "cost a: 0.7500 (15 prompt, 3 completion, 3 reasoning tokens)",
        "cost c: 0.0000 (7 prompt, 7 completion, 0 reasoning tokens)",
        "cost of the campaign: 0.7500",
    ]

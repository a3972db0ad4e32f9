"""Price tables: ``--price MODEL=IN/OUT``, the settings file, and the cost of a reply."""

from __future__ import annotations

import pytest

from explaincheck.core.campaign.prices import (
    Price,
    load_price_file,
    model_of,
    parse_price,
    price_for,
    price_table,
    row_cost,
)
from explaincheck.core.errors import ExplaincheckError


def test_parse_price_and_bad_prices():
    assert parse_price("gpt-4o-mini=0.15/0.6") == ("gpt-4o-mini", Price(0.15, 0.6))
    assert parse_price("org/m=x=1/2") == ("org/m=x", Price(1.0, 2.0))  # the last = splits
    for bad in ("gpt", "gpt=1", "=1/2", "m=a/2", "m=-1/2", "m=nan/1", "m=1/inf"):
        with pytest.raises(ExplaincheckError):
            parse_price(bad)


def test_settings_file_then_stored_then_given(tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "explaincheck").mkdir(parents=True)
    (config / "explaincheck" / "prices.toml").write_text(
        '[prices]\n"a" = "1/2"\n"b" = {prompt = 3, completion = 4}\n"c" = "5/6"\n'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    table = price_table(["c=7/8"], stored={"b": [9, 10]})
    assert table == {"a": Price(1, 2), "b": Price(9, 10), "c": Price(7, 8)}
    bad = tmp_path / "bad.toml"
    bad.write_text('[prices]\n"a" = 3\n')
    with pytest.raises(ExplaincheckError, match=r"prices\.a"):
        load_price_file(bad)
    with pytest.raises(ExplaincheckError, match="cannot read"):
        price_table(file=tmp_path / "missing.toml")


def test_cost_of_a_reply():
    prices = {"gpt-4o": Price(2.5, 10), "openai:special@http://h:1/v1": Price(1, 1)}
    assert model_of("openai:gpt-4o@http://h:8000/v1") == "gpt-4o"
    assert model_of("ollama:gemma3:1b") == "gemma3:1b"
    assert price_for("openai:gpt-4o@http://h:8000/v1", prices) == Price(2.5, 10)
    assert price_for("openai:special@http://h:1/v1", prices) == Price(1, 1)
    row = {"llm": "openai:gpt-4o", "reply": "{}", "prompt_tokens": 1000, "completion_tokens": 100}
    assert row_cost(row, prices) == pytest.approx((1000 * 2.5 + 100 * 10) / 1e6)
    assert row_cost({**row, "cached": True}, prices) == 0.0  # not generated again
    assert row_cost({**row, "reply": None}, prices) is None  # no reply: nothing to pay
    assert row_cost({**row, "prompt_tokens": None, "completion_tokens": None}, prices) is None
    assert row_cost({**row, "llm": "random"}, prices) is None

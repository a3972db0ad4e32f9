"""Price tables: ``--price MODEL=IN/OUT``, the settings file, and the cost of a reply."""

from __future__ import annotations

import pytest

from explaincheck.core.campaign.prices import (
    Price,
    cost_lines,
    load_price_file,
    model_of,
    parse_price,
    price_for,
    price_table,
    row_cost,
    stored_form,
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


def test_a_cached_input_price_prices_cached_prompt_tokens_apart(tmp_path):
    assert parse_price("m=2/8/0.5") == ("m", Price(2.0, 8.0, 0.5))
    for bad in ("m=1/2/3/4", "m=1/2/", "m=1/2/-1", "m=1/2/x"):
        with pytest.raises(ExplaincheckError, match=r"IN/OUT|is not a price|0 or more"):
            parse_price(bad)
    price = Price(2, 8, 0.5)
    assert price.cost(1000, 100, 400) == pytest.approx((600 * 2 + 400 * 0.5 + 100 * 8) / 1e6)
    assert price.cost(1000, 100, 5000) == pytest.approx((1000 * 0.5 + 100 * 8) / 1e6)  # capped
    # no cached price: cached tokens cost the input price; no count told: all at input price
    assert Price(2, 8).cost(1000, 100, 400) == pytest.approx((1000 * 2 + 100 * 8) / 1e6)
    assert price.cost(1000, 100, None) == pytest.approx((1000 * 2 + 100 * 8) / 1e6)
    row = {"llm": "m", "reply": "{}", "prompt_tokens": 1000, "completion_tokens": 100}
    assert row_cost({**row, "cached_prompt_tokens": 400}, {"m": price}) == price.cost(
        1000, 100, 400
    )
    # kept with the campaign and read back, and in a settings file
    assert stored_form({"m": price, "n": Price(1, 2)}) == {"m": [2, 8, 0.5], "n": [1, 2]}
    assert price_table(file=_empty(tmp_path), stored=stored_form({"m": price})) == {"m": price}
    file = tmp_path / "prices.toml"
    file.write_text(
        '[prices]\n"a" = "1/2/0.25"\n"b" = {prompt = 3, completion = 4, cached_prompt = 1}\n'
    )
    assert load_price_file(file) == {"a": Price(1, 2, 0.25), "b": Price(3, 4, 1)}


def test_cost_lines_say_the_cached_part_of_the_prompt():
    rows = [
        {
            "llm": "m",
            "cost": 0.5,
            "prompt_tokens": 100,
            "completion_tokens": 10,
            "cached_prompt_tokens": 40,
        },
        {"llm": "m", "cost": 0.25, "prompt_tokens": 50, "completion_tokens": 5},
        {"llm": "n", "cost": 0.0, "prompt_tokens": 7, "completion_tokens": 7},
    ]
    assert cost_lines(rows) == [
        "cost m: 0.7500 (150 prompt (40 cached), 15 completion, 0 reasoning tokens)",
        "cost n: 0.0000 (7 prompt, 7 completion, 0 reasoning tokens)",
        "cost of the campaign: 0.7500",
    ]


def _empty(folder):
    path = folder / "none.toml"
    path.write_text("[prices]\n")
    return path

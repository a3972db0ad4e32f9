"""How a stock-market state reads: cash (or debt), shares, price, portfolio value and outcome.

The portfolio value (cash + shares x price) decides success and bankruptcy; a format string
cannot compute it, and a careful reader should not have to.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import StateFacts


def _coins(amount: int) -> str:
    return f"{amount} coin" if abs(amount) == 1 else f"{amount} coins"


def describe(state: StateFacts, constants: dict) -> str:
    v = state.valuation
    cash, shares, price = int(v["c"]), int(v["k"]), int(v["p"])
    target = int(constants.get("TARGET", 16))
    worth = cash + shares * price
    if cash >= 0:
        money = f"Cash: {_coins(cash)}."
    else:
        money = f"Cash: {_coins(cash)} (you owe {_coins(-cash)} borrowed to buy shares)."
    lines = [
        money,
        f"Shares held: {shares}. Share price today: {_coins(price)}.",
        f"Portfolio value: {cash} + {shares} x {price} = {_coins(worth)} "
        f"(target: {_coins(target)}).",
    ]
    if worth >= target:
        lines.append("The portfolio has reached the target value: the task is accomplished.")
    elif worth <= 0:
        lines.append("The portfolio value has fallen to 0 or below: you are bankrupt.")
    return "\n".join(lines)

"""How a water-jug state reads: what each jug holds and how many moves are made.

A format string cannot say "1 litre" and "2 litres" both right.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import StateFacts


def _litres(amount: int) -> str:
    return f"{amount} litre" if amount == 1 else f"{amount} litres"


def describe(state: StateFacts, constants: dict) -> str:
    v = state.valuation
    a, b, t = int(v["a"]), int(v["b"]), int(v["t"])
    small, large, moves = int(constants["A"]), int(constants["B"]), int(constants["K"])
    return (
        f"The small jug ({_litres(small)}) holds {_litres(a)} and the large jug"
        f" ({_litres(large)}) holds {_litres(b)}. Moves made so far: {t} of {moves}."
    )

"""How a wolf-goat-cabbage state reads: who is on which bank, and what went wrong if anything.

The model stores one 0/1 variable per character; a human needs the two banks listed, so a
format string is not enough.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import StateFacts

BANKS = ("left bank", "right bank")
LOST = {1: "wolf", 2: "goat", 3: "cabbage"}


def _listing(names: list[str]) -> str:
    if not names:
        return "nobody"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def describe(state: StateFacts) -> str:
    v = state.valuation
    lost = int(v["lost"])
    if lost:
        return (
            f"The {LOST[lost]} fell overboard during the last crossing and was lost in the river."
        )
    where = {
        "farmer": int(v["f"]),
        "wolf": int(v["w"]),
        "goat": int(v["g"]),
        "cabbage": int(v["cb"]),
    }
    banks = [[name for name, side in where.items() if side == bank] for bank in (0, 1)]
    lines = [
        f"Left bank: {_listing(banks[0])}.",
        f"Right bank: {_listing(banks[1])}.",
        f"The farmer and the boat are on the {BANKS[where['farmer']]}.",
    ]
    alone = BANKS[1 - where["farmer"]]
    if where["wolf"] == where["goat"] != where["farmer"]:
        lines.append(
            f"The wolf and the goat are alone on the {alone}: the wolf has eaten the goat."
        )
    elif where["goat"] == where["cabbage"] != where["farmer"]:
        lines.append(
            f"The goat and the cabbage are alone on the {alone}: the goat has eaten the cabbage."
        )
    elif all(side == 1 for side in where.values()):
        lines.append("Everyone is safely on the right bank: the puzzle is solved.")
    return "\n".join(lines)

"""How a dam state reads: water level against capacity, today's weather and the days left.

The weather is a 0/1 variable and the outcome (flooded, empty, survived) depends on several
variables at once, which a format string cannot phrase.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import StateFacts


def _units(amount: int) -> str:
    return f"{amount} unit" if amount == 1 else f"{amount} units"


def describe(state: StateFacts, constants: dict) -> str:
    v = state.valuation
    level, rain, day = int(v["l"]), int(v["rain"]), int(v["d"])
    cap, days = int(constants.get("CAP", 6)), int(constants.get("DAYS", 10))
    weather = "rainy" if rain else "dry"
    when = f"when {day} of {days} days had passed (weather: {weather})"
    if level > cap:
        return (
            f"The reservoir overflowed {when} (more than {_units(cap)} of water) and flooded the "
            "valley."
        )
    if level == 0:
        return f"The reservoir ran empty {when}: there is no water left to meet the town's demand."
    if day >= days:
        return (
            f"All {days} days are over and the reservoir holds {_units(level)} of water, "
            "within the safe range: the task is accomplished."
        )
    left = days - day
    return (
        f"The reservoir holds {_units(level)} of water (capacity {_units(cap)}). "
        f"Today is day {day + 1} of {days} ({left} day{'s' if left != 1 else ''} to go, "
        f"counting today) and the weather today is {weather}."
    )

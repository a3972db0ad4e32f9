"""How a Treasure Cave state reads (optional: the `state` template of environment.toml is the
fallback, and the only wording used while this folder is not trusted).

A template can only name the variable (`location 3`); code can say what the place is like.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import StateFacts

PLACES = {
    0: "at the cave entrance; the left and the right tunnel start here",
    1: "in the left tunnel, a safe but winding way to the rope bridge",
    2: "in the right tunnel, a direct way to the rope bridge over a crumbling floor",
    3: "on the rope bridge over the chasm; the treasure room is on the far side",
    4: "in the treasure room: the task is accomplished",
    5: "at the bottom of the chasm: the exploration is over",
    6: "lost in the dark after your torch went out: the exploration is over",
}


def describe(state: StateFacts, constants: dict) -> str:
    pos = int(state.valuation["pos"])
    text = f"You are {PLACES[pos]} (location {pos})."
    if pos < 4:
        text += f" Your torch may go out on any move (probability {constants['p_dark']})."
    return text

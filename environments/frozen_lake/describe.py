"""How a Frozen Lake state reads: the map with the agent on it, and what lies next to it.

A format string cannot draw the map or say which neighbouring tile is a hole, and both matter:
the LLM must see where the holes are relative to the agent to judge a move.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import StateFacts

DIRECTIONS = (("up", -1, 0), ("down", 1, 0), ("left", 0, -1), ("right", 0, 1))


MELTABLE = ((1, 1), (1, 3), (2, 3), (3, 0))  # holes a HOLE_r_c constant can turn into ice


def is_hole(r: int, c: int, n: int, constants: dict | None = None) -> bool:
    """The hole pattern of model.prism (for n = 4: the classic map SFFF/FHFH/FFFH/HFFG), less
    the holes whose HOLE_r_c constant is false."""
    if (r, c) in MELTABLE and not (constants or {}).get(f"HOLE_{r}_{c}", True):
        return False
    return (r % 2 == 1 and c % 2 == 1 and r < n - 1) or (r, c) in ((n - 2, n - 1), (n - 1, 0))


def tile(r: int, c: int, n: int, constants: dict | None = None) -> str:
    if (r, c) == (0, 0):
        return "S"
    if (r, c) == (n - 1, n - 1):
        return "G"
    return "H" if is_hole(r, c, n, constants) else "F"


def tile_name(r: int, c: int, n: int, constants: dict | None = None) -> str:
    return {"S": "the start tile", "G": "the GOAL", "H": "a HOLE", "F": "frozen ice"}[
        tile(r, c, n, constants)
    ]


def describe(state: StateFacts, constants: dict) -> str:
    n = int(constants.get("N", 4))
    r, c = int(state.valuation["r"]), int(state.valuation["c"])
    rows = []
    for row in range(n):
        cells = ["@" if (row, col) == (r, c) else tile(row, col, n, constants) for col in range(n)]
        rows.append(f"  row {row}: " + " ".join(cells))
    lines = [
        "Map (S = start, F = frozen ice, H = hole, G = goal, @ = you; row 0 is the top row,",
        "column 0 the leftmost column):",
        *rows,
    ]
    where = f"row {r}, column {c}"
    if is_hole(r, c, n, constants):
        lines.append(f"You have fallen into the hole at {where}.")
        return "\n".join(lines)
    if (r, c) == (n - 1, n - 1):
        lines.append(f"You are on the goal tile at {where}: the task is accomplished.")
        return "\n".join(lines)
    lines.append(f"You are at {where} ({tile_name(r, c, n, constants)}).")
    around = []
    for name, dr, dc in DIRECTIONS:
        rr, cc = r + dr, c + dc
        if 0 <= rr < n and 0 <= cc < n:
            around.append(f"{name}: {tile_name(rr, cc, n, constants)} (row {rr}, column {cc})")
        else:
            around.append(f"{name}: the edge of the lake")
    lines.append("Next to you: " + "; ".join(around) + ".")
    return "\n".join(lines)

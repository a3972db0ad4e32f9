"""How a transporter state reads: the warehouse map with the robot, the item and the battery.

A format string cannot draw the map or say which neighbouring cell holds a hatch; both are needed
to judge a move on a slippery floor.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import StateFacts

DIRECTIONS = (("up", -1, 0), ("down", 1, 0), ("left", 0, -1), ("right", 0, 1))


def cell(r: int, c: int, n: int, constants: dict | None = None) -> str:
    """The layout of model.prism: shelf, drop-off point, open hatches (HATCH_A at (1, 1),
    HATCH_B at (n-2, n-2), open unless their constant is false), floor."""
    open_hatch = (constants or {}).get
    if ((r, c) == (1, 1) and open_hatch("HATCH_A", True)) or (
        (r, c) == (n - 2, n - 2) and open_hatch("HATCH_B", True)
    ):
        return "X"
    if (r, c) == (0, n - 1):
        return "S"
    if (r, c) == (n - 1, 0):
        return "D"
    return "."


NAMES = {"X": "an OPEN HATCH", "S": "the shelf", "D": "the drop-off point", ".": "floor"}


def describe(state: StateFacts, constants: dict) -> str:
    n = int(constants.get("N", 4))
    v = state.valuation
    r, c, item, battery = int(v["r"]), int(v["c"]), int(v["item"]), int(v["e"])
    rows = []
    for row in range(n):
        cells = ["R" if (row, col) == (r, c) else cell(row, col, n, constants) for col in range(n)]
        rows.append(f"  row {row}: " + " ".join(cells))
    lines = [
        "Warehouse map (R = robot, S = shelf, D = drop-off point, X = open hatch, . = floor;",
        "row 0 is the top row, column 0 the leftmost column):",
        *rows,
    ]
    where = f"row {r}, column {c}"
    if cell(r, c, n, constants) == "X":
        carried = "it was carrying the item" if item == 1 else "the item was still on the shelf"
        lines.append(
            f"The robot has fallen through the open hatch at {where} ({carried}; "
            f"battery left: {battery} move{'s' if battery != 1 else ''})."
        )
        return "\n".join(lines)
    if item == 2:
        lines.append(
            f"The robot is at the drop-off point ({where}) and has delivered the item: "
            "the task is accomplished."
        )
        return "\n".join(lines)
    lines.append(f"The robot is at {where} ({NAMES[cell(r, c, n, constants)]}).")
    lines.append(
        "The item is still on the shelf." if item == 0 else "The robot is carrying the item."
    )
    if battery == 0:
        lines.append("The battery is empty.")
        return "\n".join(lines)
    lines.append(f"Battery left: {battery} move{'s' if battery != 1 else ''}.")
    around = []
    for name, dr, dc in DIRECTIONS:
        rr, cc = r + dr, c + dc
        if 0 <= rr < n and 0 <= cc < n:
            around.append(f"{name}: {NAMES[cell(rr, cc, n, constants)]} (row {rr}, column {cc})")
        else:
            around.append(f"{name}: a wall")
    lines.append("Next to the robot: " + "; ".join(around) + ".")
    return "\n".join(lines)

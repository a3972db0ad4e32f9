"""A parameterised slippery N×N gridworld written as PRISM text, for the scaling benchmarks.

Moves go the intended way with probability 0.8 and slip to either perpendicular side with 0.1
each; walls keep the agent in place; about 10% of the cells (seeded) are holes: unsafe and
absorbing. The goal is the far corner. A wall of holes with one gap across the middle row makes
the gap cell a bottleneck, so the dominator and re-check methods have something to find.
"""

from __future__ import annotations

import random

MOVES = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
SIDEWAYS = {
    "up": ("left", "right"),
    "down": ("left", "right"),
    "left": ("up", "down"),
    "right": ("up", "down"),
}


def holes(n: int, share: float = 0.1, seed: int = 1) -> set[tuple[int, int]]:
    rng = random.Random(seed)
    wall_row = n // 2
    gap = n // 2
    cells = {(x, wall_row) for x in range(n) if x != gap} if n >= 4 else set()
    while len(cells) < int(share * n * n) + len(cells) * 0:
        cell = (rng.randrange(n), rng.randrange(n))
        if (
            cell not in {(0, 0), (n - 1, n - 1), (gap, wall_row)}
            and cell[1] != wall_row - 1
            and cell[1] != wall_row + 1
        ):
            cells.add(cell)
    return cells


def gridworld_prism(n: int, share: float = 0.1, seed: int = 1) -> str:
    cells = sorted(holes(n, share, seed))
    hole = " | ".join(f"(x={x}&y={y})" for x, y in cells) or "false"

    def update(direction: str) -> str:
        dx, dy = MOVES[direction]
        return f"(x'=max(0,min(N-1,x+({dx}))))&(y'=max(0,min(N-1,y+({dy}))))"

    lines = [
        "mdp",
        f"const int N = {n};",
        f"formula hole = {hole};",
        "formula done = hole | (x=N-1 & y=N-1);",
        "module grid",
        "  x : [0..N-1] init 0;",
        "  y : [0..N-1] init 0;",
    ]
    for action, sides in SIDEWAYS.items():
        lines.append(
            f"  [{action}] !done -> 0.8:{update(action)} + 0.1:{update(sides[0])}"
            f" + 0.1:{update(sides[1])};"
        )
    lines += ["endmodule", 'label "goal" = x=N-1 & y=N-1;', 'label "unsafe" = hole;']
    return "\n".join(lines) + "\n"

"""A parameterised slippery N×N gridworld written as PRISM text, for the scaling benchmarks.

Moves go the intended way with probability 0.8 and slip to either perpendicular side with 0.1
each; walls keep the agent in place; about 10% of the cells are holes: unsafe and absorbing. The
goal is the far corner (the 2×2 corners at start and goal have no holes). A wall of holes with
one gap across the middle row makes the gap cell a bottleneck, so the dominator and re-check
methods have something to find.

The holes are stated by arithmetic on x and y (a quadratic hash modulo a prime), not as a list of
cells: a disjunction of N²/10 cells made Storm's build of the 40,000-state grid take minutes, this
formula costs the same at every size. A quadratic modulo a prime takes each value at most twice
along any row or column, so no row or column is all holes.
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
PRIME = 19  # a cell is a hole when the hash falls below 2 of 19 residues (about 10.5%)


def _hash_text(seed: int) -> str:
    return f"mod(3*x*x+5*x*y+7*y*y+11*x+13*y+{seed},{PRIME})<2"


def is_scattered_hole(x: int, y: int, seed: int = 1) -> bool:
    """The hash of ``_hash_text`` in Python (PRISM's mod of non-negatives is Python's %)."""
    return (3 * x * x + 5 * x * y + 7 * y * y + 11 * x + 13 * y + seed) % PRIME < 2


def holes(n: int, seed: int = 1) -> set[tuple[int, int]]:
    """The hole cells of ``gridworld_prism(n, seed)``, computed in Python (for tests and plots)."""
    wall, gap = n // 2, n // 2
    cells = set()
    for x in range(n):
        for y in range(n):
            if (n >= 4 and y == wall and x != gap) or (
                not (x <= 1 and y <= 1)
                and not (x >= n - 2 and y >= n - 2)
                and abs(y - wall) > 1
                and is_scattered_hole(x, y, seed)
            ):
                cells.add((x, y))
    return cells


def listed_holes(n: int, share: float = 0.1, seed: int = 1) -> set[tuple[int, int]]:
    """The first layout: the wall plus seeded random cells, listed one by one in the model.
    Small grids in the tests keep it: the tests' reference value iteration converges on it."""
    rng = random.Random(seed)
    wall, gap = n // 2, n // 2
    cells = {(x, wall) for x in range(n) if x != gap} if n >= 4 else set()
    target = int(share * n * n)
    while len(cells) < target:
        cell = (rng.randrange(n), rng.randrange(n))
        if cell not in {(0, 0), (n - 1, n - 1), (gap, wall)} and abs(cell[1] - wall) != 1:
            cells.add(cell)
    return cells


def gridworld_prism(n: int, seed: int = 1, *, listed: bool = False) -> str:
    """The model text; ``listed`` states the holes of ``listed_holes`` as a disjunction of
    cells (cheap below a few hundred states, minutes to build at 40,000)."""
    wall, gap = n // 2, n // 2
    scattered = (
        f"!(x<=1&y<=1) & !(x>=N-2&y>=N-2) & (y<{wall - 1} | y>{wall + 1}) & {_hash_text(seed)}"
    )
    wall_part = f"(y={wall} & x!={gap})" if n >= 4 else "false"
    hole = f"{wall_part} | ({scattered})"
    if listed:
        cells = sorted(listed_holes(n, seed=seed))
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

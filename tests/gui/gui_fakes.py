"""Hand-made oracle results for GUI tests that need no Storm (fast, exact expectations)."""

from __future__ import annotations

from explaincheck.core.oracle.types import ModelSummary, OracleResult, StateFacts

# A 3x3 grid: start (0,0), goal (2,2), a hole at (1,1) (unsafe dead end); the facts are made
# up (not a computed oracle) but say: (2,1) is the bottleneck, the hole the only dead end.
GRID_CELLS = [(x, y) for y in range(3) for x in range(3)]
HOLE = (1, 1)
GOAL = (2, 2)
BOTTLENECK = (2, 1)


def _summary(n: int, variables: tuple[str, ...], labels: tuple[str, ...], actions) -> ModelSummary:
    return ModelSummary(
        path="fake.prism",
        constants="",
        goal_label="goal",
        unsafe_label="unsafe",
        states=n,
        choices=n,
        transitions=n,
        initial=0,
        variables=variables,
        labels=labels,
        actions=tuple(actions),
        content_hash="fake",
    )


def grid_oracle() -> OracleResult:
    """A 3x3 grid where the bottleneck is (2,1) and the dead end is the hole (1,1)."""
    ids = {cell: i for i, cell in enumerate(GRID_CELLS)}
    moves = {"right": (1, 0), "down": (0, 1), "left": (-1, 0), "up": (0, -1)}
    # values: 1 on the goal path through (2,1), 0 in the hole, 0.5 elsewhere (made up, consistent
    # enough for drawing and inspecting)
    states = []
    for cell, sid in ids.items():
        x, y = cell
        successors: dict[str, dict[int, float]] = {}
        q: dict[str, float] = {}
        terminal = cell in (HOLE, GOAL)
        if terminal:
            successors = {"": {sid: 1.0}}
        else:
            for action, (dx, dy) in moves.items():
                nx_, ny_ = x + dx, y + dy
                if not (0 <= nx_ < 3 and 0 <= ny_ < 3):
                    continue
                target = ids[(nx_, ny_)]
                successors[action] = {target: 0.8, sid: 0.2}
                q[action] = 0.9 if (nx_, ny_) in (BOTTLENECK, GOAL) else 0.4
        value = 1.0 if cell == GOAL else 0.0 if cell == HOLE else (max(q.values()) if q else 0.0)
        best = tuple(a for a, v in q.items() if v == max(q.values())) if q else ()
        worst = tuple(a for a, v in q.items() if v == min(q.values())) if q else ()
        states.append(
            StateFacts(
                id=sid,
                valuation={"x": x, "y": y},
                labels=tuple(
                    ["init"] * (cell == (0, 0))
                    + ["goal"] * (cell == GOAL)
                    + ["unsafe"] * (cell == HOLE)
                ),
                value=value,
                danger=1.0 if cell == HOLE else 0.1,
                q=q,
                best=best,
                worst=worst,
                action_order=(best, worst) if q else (),
                optimal_action=best[0] if best else None,
                dead_end=cell == HOLE,
                bottleneck=cell == BOTTLENECK,
                centrality=0.5 if cell == BOTTLENECK else 0.1,
                is_goal=cell == GOAL,
                is_unsafe=cell == HOLE,
                is_initial=cell == (0, 0),
                successors=successors,
            )
        )
    return OracleResult(
        model=_summary(9, ("x", "y"), ("init", "goal", "unsafe"), moves),
        states=tuple(states),
        method="exact",
        tie_tolerance=0.0,
        has_danger=True,
        warnings=(),
        seconds=0.01,
    )


def chain_oracle(n: int = 5000) -> OracleResult:
    """A long ring with shortcuts and no grid variables: too big to draw whole."""
    states = []
    for i in range(n):
        nxt, skip = (i + 1) % n, (i + 7) % n
        successors = {"step": {nxt: 1.0}, "jump": {skip: 0.5, i: 0.5}}
        states.append(
            StateFacts(
                id=i,
                valuation={"k": i, "flag": i % 2 == 0},
                labels=("goal",) if i == n - 1 else (),
                value=i / n,
                danger=None,
                q={"step": i / n, "jump": i / (2 * n)},
                best=("step",),
                worst=("jump",),
                action_order=(("step",), ("jump",)),
                optimal_action="step",
                dead_end=i == 0 and False,
                bottleneck=i == 10,
                centrality=0.0,
                is_goal=i == n - 1,
                is_unsafe=False,
                is_initial=i == 0,
                successors=successors,
            )
        )
    return OracleResult(
        model=_summary(n, ("k", "flag"), ("goal",), ("step", "jump")),
        states=tuple(states),
        method="verified",
        tie_tolerance=1e-9,
        has_danger=False,
        warnings=(),
        seconds=0.5,
    )

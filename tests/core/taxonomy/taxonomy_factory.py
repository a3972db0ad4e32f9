"""Hand-built oracles for taxonomy tests: StateFacts/OracleResult made directly, no Storm.

``make_state`` derives A*, A°, the tie groups and V from the given Q values the way the oracle
does; ``make_oracle`` wraps states into an OracleResult. ``toy_oracle`` is the small model the
per-category tests check by value (see its docstring for the numbers).
"""

from __future__ import annotations

from fractions import Fraction

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import (
    EXACT,
    Certificate,
    ModelSummary,
    OracleResult,
    StateFacts,
)


def make_state(
    id: int,
    q: dict[str, float] | None = None,
    *,
    value: float | None = None,
    danger: float | None = 0.0,
    goal: bool = False,
    unsafe: bool = False,
    initial: bool = False,
    bottleneck: bool = False,
    centrality: float = 0.0,
    tie_tolerance: float = 0.0,
    exact: bool = True,
    successors: dict[str, dict[int, float]] | None = None,
    value_interval: tuple[float, float] | None = None,
    danger_interval: tuple[float, float] | None = None,
) -> StateFacts:
    """One state; V defaults to max Q (0 without actions), groups tie within ``tie_tolerance``;
    ``value_interval``/``danger_interval``: the verified method's bounds (``make_oracle``'s
    ``bounded`` gives the oracle the certificate that makes grading read them)."""
    q = dict(q or {})
    if value is None:
        value = max(q.values()) if q else (1.0 if goal else 0.0)
    ordered = sorted(q, key=lambda a: -q[a])
    groups: list[list[str]] = []
    for action in ordered:
        if groups and abs(q[groups[-1][0]] - q[action]) <= tie_tolerance:
            groups[-1].append(action)
        else:
            groups.append([action])
    order = tuple(tuple(g) for g in groups)
    labels = tuple(x for x, on in (("goal", goal), ("unsafe", unsafe), ("init", initial)) if on)
    return StateFacts(
        id=id,
        valuation={"s": id},
        labels=labels,
        value=value,
        danger=danger,
        q=q,
        best=order[0] if order else (),
        worst=order[-1] if order else (),
        action_order=order,
        optimal_action=order[0][0] if order else None,
        dead_end=value == 0,
        bottleneck=bottleneck,
        centrality=centrality,
        is_goal=goal,
        is_unsafe=unsafe,
        is_initial=initial,
        successors=successors if successors is not None else {a: _moves(id) for a in q},
        value_exact=str(Fraction(value)) if exact else None,
        danger_exact=str(Fraction(danger)) if exact and danger is not None else None,
        q_exact={a: str(Fraction(v)) for a, v in q.items()} if exact else {},
        value_interval=value_interval,
        danger_interval=danger_interval,
    )


def _moves(id: int) -> dict[int, float]:
    """Default outcome of an action: stay or go to another state (never a do-nothing action,
    which preference questions leave out; pass ``successors`` to make one)."""
    return {id: 0.5, 0 if id else 1: 0.5}


def make_oracle(
    states: list[StateFacts],
    *,
    has_danger: bool = True,
    tie_tolerance: float = 0.0,
    bounded: bool = False,
) -> OracleResult:
    """The states as one oracle; ``bounded``: the verified method's certificate (the states'
    intervals then decide ``uncertain`` verdicts), its width the widest interval given."""
    actions = tuple(dict.fromkeys(a for s in states for a in s.q))
    initial = next((s.id for s in states if s.is_initial), 0)
    model = ModelSummary(
        path="toy.prism",
        constants="",
        goal_label="goal",
        unsafe_label="unsafe",
        states=len(states),
        choices=sum(max(1, len(s.q)) for s in states),
        transitions=sum(max(1, len(s.q)) for s in states),
        initial=initial,
        variables=("s",),
        labels=("goal", "unsafe"),
        actions=actions,
        content_hash="toy",
    )
    return OracleResult(
        model=model,
        states=tuple(states),
        method=EXACT if tie_tolerance == 0 else "verified",
        tie_tolerance=tie_tolerance,
        has_danger=has_danger,
        warnings=(),
        seconds=0.0,
        certificate=_bounded(states) if bounded else None,
    )


def _bounded(states: list[StateFacts]) -> Certificate:
    pairs = [p for s in states for p in (s.value_interval, s.danger_interval) if p is not None]
    return Certificate(
        "bounded", "hand-made intervals", max((hi - lo for lo, hi in pairs), default=0.0)
    )


def toy_oracle() -> OracleResult:
    """Eight states; ids, V, D, C_B and flags:

    0 initial  Q left .5 right .75 stay .5   V .75  D .1  C_B .3
    1          Q left .25 right .5           V .5   D .2  C_B .2
    2 bottle.  Q go 1 wait 1 (all tied)      V 1    D 0   C_B .6
    3 dead end Q a 0 b 0 (live: moves to 4)  V 0    D .5  C_B .1
    4 unsafe trap, no actions (dead end)     V 0    D 1   C_B 0
    5 goal, no actions                       V 1    D 0   C_B 0
    6          Q x .4 y .3 z .1              V .4   D .3  C_B .5
    7 bottle.  Q only .6 (one action)        V .6   D .2  C_B .4
    """
    return make_oracle(
        [
            make_state(
                0,
                {"left": 0.5, "right": 0.75, "stay": 0.5},
                danger=0.1,
                initial=True,
                centrality=0.3,
            ),
            make_state(1, {"left": 0.25, "right": 0.5}, danger=0.2, centrality=0.2),
            make_state(2, {"go": 1.0, "wait": 1.0}, danger=0.0, bottleneck=True, centrality=0.6),
            make_state(
                3,
                {"a": 0.0, "b": 0.0},
                danger=0.5,
                centrality=0.1,
                successors={"a": {4: 1.0}, "b": {3: 0.5, 4: 0.5}},  # a live dead end
            ),
            make_state(4, danger=1.0, unsafe=True),
            make_state(5, danger=0.0, goal=True),
            make_state(6, {"x": 0.4, "y": 0.3, "z": 0.1}, danger=0.3, centrality=0.5),
            make_state(7, {"only": 0.6}, danger=0.2, bottleneck=True, centrality=0.4),
        ]
    )


def toy_environment() -> Environment:
    return Environment(
        id=None,
        title="Toy",
        description="A hand-built model for tests.",
        model_path="toy.prism",
        constants="",
        goal_label="goal",
        unsafe_label="unsafe",
        task="You are an agent in a toy world. Reach the goal and avoid the trap.",
        action_meanings={"left": "step left", "right": "step right (slippery)"},
        describe=lambda s: f"you stand on tile {s.id}.",
    )

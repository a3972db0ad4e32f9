"""Where the MDP graph puts its states: grid positions, graph layouts and neighbourhoods.

Pure Python (no Qt), so it can run on a worker thread for big models and be tested alone.
Grid models (x/y or row/column variables) get their natural picture; other models get a
force-directed layout (Kamada-Kawai when small, spring otherwise) or BFS layers from the
initial state. Models too big to draw whole are shown as the neighbourhood of chosen states.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from explaincheck.core.oracle.types import OracleResult

CELL = 110.0  # scene units between neighbouring grid cells / typical edge length
NODE_RADIUS = 20.0
FULL_LIMIT_GRID = 1200  # grid layouts are free, but painting thousands of items is not
FULL_LIMIT_GRAPH = 600  # force layouts cost O(n^2) per iteration: beyond this, neighbourhoods
NEIGHBOURHOOD_CAP = 400  # never put more nodes than this in a neighbourhood view

# Variable-name pairs that make a model a grid: (horizontal, vertical) suffixes.
_GRID_SUFFIXES = (("x", "y"), ("col", "row"), ("column", "row"), ("c", "r"))


@dataclass(frozen=True)
class GraphIndex:
    """The transition graph of an oracle, aggregated per ordered pair of distinct states."""

    size: int
    initial: int
    edges: dict[tuple[int, int], dict[str, float]]  # (src, dst) -> {action: probability}
    self_loops: dict[int, dict[str, float]]  # state -> {action: probability of staying}
    neighbours: tuple[tuple[int, ...], ...]  # undirected adjacency
    grid: tuple[str, str] | None  # (horizontal, vertical) variable names

    @classmethod
    def from_oracle(cls, oracle: OracleResult) -> GraphIndex:
        edges: dict[tuple[int, int], dict[str, float]] = {}
        loops: dict[int, dict[str, float]] = {}
        adjacency: list[set[int]] = [set() for _ in oracle.states]
        for state in oracle.states:
            for action, successors in state.successors.items():
                name = action or "(unlabelled)"
                for successor, probability in successors.items():
                    if probability <= 0:
                        continue
                    if successor == state.id:
                        loops.setdefault(state.id, {})[name] = float(probability)
                        continue
                    edges.setdefault((state.id, successor), {})[name] = float(probability)
                    adjacency[state.id].add(successor)
                    adjacency[successor].add(state.id)
        return cls(
            size=len(oracle.states),
            initial=oracle.model.initial,
            edges=edges,
            self_loops=loops,
            neighbours=tuple(tuple(sorted(n)) for n in adjacency),
            grid=grid_axes(oracle),
        )

    def draws_whole(self) -> bool:
        """Whether the whole model fits on screen without a neighbourhood."""
        limit = FULL_LIMIT_GRID if self.grid else FULL_LIMIT_GRAPH
        return self.size <= limit

    def edges_among(self, shown: Collection[int]) -> dict[tuple[int, int], dict[str, float]]:
        shown_set = set(shown)
        if len(shown_set) == self.size:
            return self.edges
        return {
            (s, t): actions
            for (s, t), actions in self.edges.items()
            if s in shown_set and t in shown_set
        }

    def frontier(self, shown: Collection[int]) -> set[int]:
        """Shown states that have neighbours which are not shown (drawn with a '+')."""
        shown_set = set(shown)
        return {s for s in shown_set if any(n not in shown_set for n in self.neighbours[s])}


def grid_axes(oracle: OracleResult) -> tuple[str, str] | None:
    """The (horizontal, vertical) integer variables of a grid model, if it has them."""
    variables = list(oracle.model.variables) or (
        list(oracle.states[0].valuation) if oracle.states else []
    )
    lowered = {v.lower(): v for v in variables}
    for horizontal, vertical in _GRID_SUFFIXES:
        for name_lower, name in lowered.items():
            if not name_lower.endswith(horizontal):
                continue
            prefix = name_lower[: len(name_lower) - len(horizontal)]
            partner = lowered.get(prefix + vertical)
            if partner and _integer_valued(oracle, name) and _integer_valued(oracle, partner):
                return name, partner
    return None


def _integer_valued(oracle: OracleResult, variable: str) -> bool:
    for state in oracle.states[:200]:
        value = state.valuation.get(variable)
        if isinstance(value, bool) or not isinstance(value, int):
            return False
    return True


def neighbourhood(
    index: GraphIndex, centres: Iterable[int], depth: int, cap: int = NEIGHBOURHOOD_CAP
) -> set[int]:
    """States within ``depth`` undirected steps of any centre, at most ``cap`` of them
    (the nearest first, so the centres are always in)."""
    seen: set[int] = set()
    queue: deque[tuple[int, int]] = deque()
    for centre in centres:
        if 0 <= centre < index.size and centre not in seen:
            seen.add(centre)
            queue.append((centre, 0))
    while queue and len(seen) < cap:
        state, distance = queue.popleft()
        if distance >= depth:
            continue
        for other in index.neighbours[state]:
            if other not in seen:
                seen.add(other)
                queue.append((other, distance + 1))
                if len(seen) >= cap:
                    break
    return seen


def layout(
    oracle: OracleResult, index: GraphIndex, shown: Collection[int], mode: str = "auto"
) -> tuple[dict[int, tuple[float, float]], float]:
    """Positions (scene units) of the shown states and the node radius to draw them with."""
    shown = sorted(shown)
    if not shown:
        return {}, NODE_RADIUS
    if mode == "grid" or (mode == "auto" and index.grid):
        if index.grid:
            return grid_layout(oracle, index.grid, shown)
        mode = "force"
    if mode == "layers":
        return layered_layout(index, shown), NODE_RADIUS
    return force_layout(index, shown), NODE_RADIUS


def grid_layout(
    oracle: OracleResult, axes: tuple[str, str], shown: list[int]
) -> tuple[dict[int, tuple[float, float]], float]:
    """Cells from the grid variables; several states in one cell share it in a small sub-grid."""
    horizontal, vertical = axes
    cells: dict[tuple[int, int], list[int]] = defaultdict(list)
    for state_id in shown:
        valuation = oracle.states[state_id].valuation
        cells[(int(valuation[horizontal]), int(valuation[vertical]))].append(state_id)
    crowd = max(len(ids) for ids in cells.values())
    side = math.ceil(math.sqrt(crowd))
    sub = CELL / side
    radius = min(NODE_RADIUS * 1.3, sub * 0.3) if side > 1 else NODE_RADIUS * 1.3
    positions: dict[int, tuple[float, float]] = {}
    for (cx, cy), ids in cells.items():
        for k, state_id in enumerate(sorted(ids)):
            if side == 1:
                positions[state_id] = (cx * CELL, cy * CELL)
            else:
                row, col = divmod(k, side)
                dx = (col - (side - 1) / 2) * sub
                dy = (row - (side - 1) / 2) * sub
                positions[state_id] = (cx * CELL + dx, cy * CELL + dy)
    return positions, radius


def force_layout(index: GraphIndex, shown: list[int]) -> dict[int, tuple[float, float]]:
    """Kamada-Kawai for small connected graphs (stable, readable), spring otherwise."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(shown)
    shown_set = set(shown)
    for s, t in index.edges_among(shown_set):
        graph.add_edge(s, t)
    n = len(shown)
    if n == 1:
        return {shown[0]: (0.0, 0.0)}
    if n <= 250 and nx.is_connected(graph):
        raw = nx.kamada_kawai_layout(graph)
    else:
        raw = nx.spring_layout(graph, seed=0, iterations=60 if n <= 1000 else 30)
    return _scaled(raw, n)


def layered_layout(index: GraphIndex, shown: list[int]) -> dict[int, tuple[float, float]]:
    """Columns by BFS distance from the initial state (or the first shown state); rows ordered
    by the mean row of their predecessors to keep edges short."""
    shown_set = set(shown)
    start = index.initial if index.initial in shown_set else shown[0]
    depth = {start: 0}
    queue = deque([start])
    outgoing: dict[int, list[int]] = defaultdict(list)
    for s, t in index.edges_among(shown_set):
        outgoing[s].append(t)
    while queue:
        state = queue.popleft()
        for other in sorted(set(outgoing[state]) | set(index.neighbours[state])):
            if other in shown_set and other not in depth:
                depth[other] = depth[state] + 1
                queue.append(other)
    last = max(depth.values(), default=0)
    for state in shown:  # unreachable within the shown part: one column at the end
        depth.setdefault(state, last + 1)
    layers: dict[int, list[int]] = defaultdict(list)
    for state, d in depth.items():
        layers[d].append(state)
    row_of: dict[int, float] = {}
    positions: dict[int, tuple[float, float]] = {}
    for d in sorted(layers):
        members = layers[d]

        def barycentre(state: int) -> float:
            rows = [row_of[n] for n in index.neighbours[state] if n in row_of]
            return sum(rows) / len(rows) if rows else float(state)

        members.sort(key=barycentre)
        offset = (len(members) - 1) / 2
        for k, state in enumerate(members):
            row_of[state] = k - offset
            positions[state] = (d * CELL * 1.6, (k - offset) * CELL * 0.8)
    return positions


def _scaled(raw: dict, n: int) -> dict[int, tuple[float, float]]:
    """Scale a unit layout so neighbouring nodes sit about one CELL apart."""
    xs = [p[0] for p in raw.values()]
    ys = [p[1] for p in raw.values()]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    target = CELL * max(2.0, math.sqrt(n) * 1.15)
    factor = target / span
    return {int(k): (float(p[0]) * factor, float(p[1]) * factor) for k, p in raw.items()}

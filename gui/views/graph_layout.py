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

import numpy as np

from explaincheck.core.oracle.types import OracleResult

CELL = 110.0  # scene units between neighbouring grid cells / typical edge length
NODE_RADIUS = 20.0
FULL_LIMIT_GRID = 1200  # grid layouts are free, but painting thousands of items is not
FULL_LIMIT_GRAPH = 600  # force layouts cost O(n^2) per iteration: beyond this, neighbourhoods
NEIGHBOURHOOD_CAP = 400  # never put more nodes than this in a neighbourhood view

# Variable-name pairs that make a model a grid: (horizontal, vertical) suffixes.
_GRID_SUFFIXES = (("x", "y"), ("col", "row"), ("column", "row"), ("c", "r"))


class GraphIndex:
    """The transition graph of an oracle, aggregated per ordered pair of distinct states.

    Built lazily, because a 10^5-state model must show its first neighbourhood at once: a
    state's out-edges are read from its facts when first asked for, and the reverse adjacency
    (predecessors: one pass over the whole model) is built by ``build_reverse``, which the view
    runs on a worker thread after the first picture. Until then neighbourhoods follow
    transitions forwards only. Small models (drawn whole) are indexed completely at once.
    """

    def __init__(self, oracle: OracleResult) -> None:
        self.oracle = oracle
        self.size = len(oracle.states)
        self.initial = oracle.model.initial
        self.grid = grid_axes(oracle)
        self._out: dict[int, dict[int, dict[str, float]]] = {}
        self._loops: dict[int, dict[str, float]] = {}
        self._predecessors: list[tuple[int, ...]] | None = None
        # the roles some state has (for the legend) and how many have each (for the summary)
        self.role_counts = _role_counts(oracle)
        self.marks = set(self.role_counts)

    @classmethod
    def from_oracle(cls, oracle: OracleResult) -> GraphIndex:
        index = cls(oracle)
        if index.draws_whole():
            index.build_reverse()
        return index

    # -- edges -----------------------------------------------------------------------------
    def out_edges(self, state: int) -> dict[int, dict[str, float]]:
        """Successor -> {action: probability} of one state (self-loops apart)."""
        found = self._out.get(state)
        if found is None:
            found = {}
            for action, successors in self.oracle.states[state].successors.items():
                name = action or "(unlabelled)"
                for successor, probability in successors.items():
                    if probability <= 0:
                        continue
                    if successor == state:
                        self._loops.setdefault(state, {})[name] = float(probability)
                    else:
                        found.setdefault(successor, {})[name] = float(probability)
            self._out[state] = found
        return found

    def self_loop(self, state: int) -> dict[str, float]:
        self.out_edges(state)
        return self._loops.get(state, {})

    def build_reverse(self) -> None:
        """The predecessors of every state (a whole-model pass: run it off the GUI thread)."""
        if self._predecessors is not None:
            return
        fast = getattr(self.oracle.states, "predecessors", None)  # a large model's columns
        if fast is not None:
            self._predecessors = fast()
            return
        reverse: list[list[int]] = [[] for _ in range(self.size)]
        for state in range(self.size):
            for successor in self.out_edges(state):
                reverse[successor].append(state)
        self._predecessors = [tuple(p) for p in reverse]

    @property
    def has_reverse(self) -> bool:
        return self._predecessors is not None

    def neighbours(self, state: int) -> set[int]:
        """Undirected neighbours once the reverse is built, successors before."""
        found = set(self.out_edges(state))
        if self._predecessors is not None:
            found.update(self._predecessors[state])
        return found

    def draws_whole(self) -> bool:
        """Whether the whole model fits on screen without a neighbourhood."""
        limit = FULL_LIMIT_GRID if self.grid else FULL_LIMIT_GRAPH
        return self.size <= limit

    def edges_among(self, shown: Collection[int]) -> dict[tuple[int, int], dict[str, float]]:
        """Edges whose both ends are shown: reads the shown states only, never the whole model."""
        shown_set = set(shown)
        return {
            (s, t): actions
            for s in sorted(shown_set)
            for t, actions in self.out_edges(s).items()
            if t in shown_set
        }

    def frontier(self, shown: Collection[int]) -> set[int]:
        """Shown states that have neighbours which are not shown (drawn with a '+')."""
        shown_set = set(shown)
        return {s for s in shown_set if not self.neighbours(s) <= shown_set}


def _role_counts(oracle: OracleResult) -> dict[str, int]:
    """How many states have each role; the flags first, so ordinary states cost little."""
    fast = getattr(oracle.states, "role_counts", None)  # a large model's columns
    if fast is not None:
        return fast()
    counts: dict[str, int] = defaultdict(int)
    for s in oracle.states:
        if s.is_initial or s.is_goal or s.is_unsafe or s.dead_end or s.bottleneck:
            for mark in s.roles:
                counts[mark] += 1
    return dict(counts)


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
        for other in sorted(index.neighbours(state)):
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
        return layered_layout(index, shown), disc_radius(len(shown))
    return force_layout(index, shown), disc_radius(len(shown))


# Where the states of a cell's other layers sit around its centre (fractions of CELL): a
# state whose other variables (crashed, carrying, ...) differ from the initial state's is tucked
# into a corner of its cell, so the initial state's layer keeps the plain grid's picture.
CORNERS = ((0.4, 0.4), (-0.4, 0.4), (0.4, -0.4), (-0.4, -0.4))


def grid_layout(
    oracle: OracleResult, axes: tuple[str, str], shown: list[int]
) -> tuple[dict[int, tuple[float, float]], float]:
    """Cells from the grid variables. States that share a cell differ in the model's other
    variables (a layer: crashed or not, what is carried): the initial state's layer sits at
    the cells' centres as a plain grid and each other layer in the same corner of every cell
    (issue 50: a 3x3 grid with crash states read as a 6x3 grid of alternating states); with
    more layers than corners, a cell shares its room in a sub-grid, layer by layer."""
    horizontal, vertical = axes
    cells: dict[tuple[int, int], list[int]] = defaultdict(list)
    for state_id in shown:
        valuation = oracle.states[state_id].valuation
        cells[(int(valuation[horizontal]), int(valuation[vertical]))].append(state_id)
    crowd = max(len(ids) for ids in cells.values())
    if crowd == 1:
        positions = {ids[0]: (cx * CELL, cy * CELL) for (cx, cy), ids in cells.items()}
        return positions, NODE_RADIUS * 1.3
    rank = _layers(oracle, axes, shown)
    if len(set(rank.values())) <= len(CORNERS) + 1:
        positions = {}
        for (cx, cy), ids in cells.items():
            for state_id in ids:
                layer = rank[state_id]
                dx, dy = CORNERS[layer - 1] if layer else (0.0, 0.0)
                positions[state_id] = ((cx + dx) * CELL, (cy + dy) * CELL)
        return positions, NODE_RADIUS
    side = math.ceil(math.sqrt(crowd))
    sub = CELL / side
    positions = {}
    for (cx, cy), ids in cells.items():
        for k, state_id in enumerate(sorted(ids, key=lambda s: (rank[s], s))):
            row, col = divmod(k, side)
            dx = (col - (side - 1) / 2) * sub
            dy = (row - (side - 1) / 2) * sub
            positions[state_id] = (cx * CELL + dx, cy * CELL + dy)
    return positions, min(NODE_RADIUS * 1.3, sub * 0.3)


def _layers(oracle: OracleResult, axes: tuple[str, str], shown: list[int]) -> dict[int, int]:
    """Each shown state's layer: 0 for the initial state's values of the other variables, then
    the other value combinations, the most frequent first (ties in a fixed order)."""

    def key(state_id: int) -> tuple[tuple[str, str], ...]:
        valuation = oracle.states[state_id].valuation
        return tuple((k, repr(v)) for k, v in sorted(valuation.items()) if k not in axes)

    initial = oracle.model.initial
    first = key(initial) if 0 <= initial < len(oracle.states) else None
    counts: dict[tuple[tuple[str, str], ...], int] = defaultdict(int)
    for state_id in shown:
        counts[key(state_id)] += 1
    order = sorted(counts, key=lambda k: (k != first, -counts[k], k))
    rank = {layer: position for position, layer in enumerate(order)}
    return {state_id: rank[key(state_id)] for state_id in shown}


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
        for other in sorted(set(outgoing[state]) | index.neighbours(state)):
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
            rows = [row_of[n] for n in index.neighbours(state) if n in row_of]
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


def disc_radius(shown: int) -> float:
    """The disc radius of a force or layered layout of ``shown`` states: a few states spread
    over a span of several cells, so their discs grow (up to 1.7 times) to keep their ids
    readable in a narrow pane (issue 50, point 10: a 9-state model's ids were not drawn in the
    Workbench's graph); from about 40 states on, the normal radius."""
    return min(NODE_RADIUS * 1.7, max(NODE_RADIUS, NODE_RADIUS * 48 / (shown + 12)))


PRESENTED_LIMIT = 400  # discs grow with the presentation size up to this many shown states


def presented_radius(
    positions: dict[int, tuple[float, float]], radius: float, scale: float
) -> float:
    """The disc radius at the presentation size ``scale``: grown with it (so the ids grow on
    screen, not only within a disc the pane's fit keeps small) as far as the layout has room,
    a disc at most 0.42 of the distance to its nearest neighbour; as laid out above
    ``PRESENTED_LIMIT`` states or at 100 %."""
    if scale <= 1.0 or len(positions) > PRESENTED_LIMIT:
        return radius
    if len(positions) < 2:
        return radius * scale
    points = np.array(list(positions.values()), dtype=float)
    gaps = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(gaps, np.inf)
    room = 0.42 * float(gaps.min())
    return max(radius, min(radius * scale, room))

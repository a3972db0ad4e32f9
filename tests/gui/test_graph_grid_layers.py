"""The grid layout of a grid with a second layer of states (crashed or not): the initial
state's layer is a plain grid at the cells' centres, every crashed state sits in the same corner
of its cell, and no two discs touch (issue 50: the 3x3 grid read as a 6x3 grid of alternating
states)."""

from __future__ import annotations

import math
from pathlib import Path

from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.gui.views.graph_layout import CELL, GraphIndex, layout

MODEL = Path(__file__).resolve().parents[1] / "models" / "grid_crash.prism"


def test_crash_states_sit_in_one_corner_of_their_cells_and_the_rest_is_a_plain_grid(tmp_path):
    oracle = compute_oracle(OracleRequest(str(MODEL)))
    index = GraphIndex.from_oracle(oracle)
    assert index.grid == ("x", "y")
    positions, radius = layout(oracle, index, range(len(oracle.states)))
    offsets = set()
    for state in oracle.states:
        x, y = state.valuation["x"] * CELL, state.valuation["y"] * CELL
        px, py = positions[state.id]
        if state.valuation["crashed"]:
            offsets.add((round(px - x, 6), round(py - y, 6)))
        else:
            assert (px, py) == (x, y)  # the initial state's layer: the cells' centres
    assert len(offsets) == 1 and offsets != {(0.0, 0.0)}  # one corner, the same in each cell
    ids = sorted(positions)
    closest = min(
        math.dist(positions[a], positions[b]) for i, a in enumerate(ids) for b in ids[i + 1 :]
    )
    assert closest > 2.5 * radius  # discs and their rings apart

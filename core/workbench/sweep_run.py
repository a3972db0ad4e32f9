"""``run_sweep``: every point of a sweep, then its tipping points located (``sweep.py`` for the
points and the changes between them, ``tipping.py`` for locating each change exactly).

Apart from ``sweep.py`` because locating a change runs more points: ``tipping.py`` builds on
``sweep.py``, and this module on both, so neither imports the other back.
"""

from __future__ import annotations

from collections.abc import Iterable

from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.workbench.sweep import (
    Progress,
    Sweep,
    SweepRange,
    find_changes,
    run_point,
    state_keys,
    with_declared_type,
)
from explaincheck.core.workbench.tipping import locate


def run_sweep(
    request: OracleRequest,
    sweep: SweepRange,
    states: Iterable[int] | None = None,
    *,
    exact_points: bool = True,
    on_point: Progress | None = None,
    named_by: OracleResult | None = None,
) -> Sweep:
    """Every point of the sweep, then the tipping points of the chosen states (all states
    when ``states`` is None), each located as exactly as the model allows. States are named
    by ``named_by``'s ids (the GUI's open model, so "state 10" is the state the user sees),
    else by the first good point's; either way each point's own states are matched to them
    by valuation."""
    chosen = None if states is None else tuple(states)
    sweep = with_declared_type(request, sweep)
    points = []
    reference = state_keys(named_by) if named_by is not None else None
    initial = named_by.model.initial if named_by is not None else None
    for i, value in enumerate(sweep.values):
        point = run_point(request, sweep.name, value, chosen, reference)
        if reference is None and point.oracle is not None:  # the first good point names them
            reference, initial = state_keys(point.oracle), point.oracle.model.initial
        points.append(point)
        if on_point is not None:
            on_point(i + 1, len(sweep.values), point)
    notes: list[str] = []
    tipping = tuple(
        locate(request, sweep, changes, notes, reference) if exact_points else changes
        for changes in find_changes(points)
    )
    bounds = (sweep.values[0], sweep.values[-1]) if sweep.values else None
    return Sweep(
        sweep.name,
        tuple(points),
        tipping,
        chosen,
        tuple(dict.fromkeys(notes)),
        initial,
        bounds,
    )

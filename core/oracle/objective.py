"""What the values phase computes: one ``Objective`` per value column, the one parameter of
``compute.py``'s values phase.

Today the oracle asks two: V = Pmax [F goal], whose optimal choices are the scheduler of every
later phase, and, where the model has an unsafe set, D = Pmin [F unsafe]. Each says its
direction and target (what the project's own solver and the certificate compute where Storm's
engines stop short: ``sound_values.py``, ``certificate.py``) and carries the same quantity as
Storm's parsed property. A property of another form (an until with states to avoid, a step
bound, expected rewards: issue 49) is another ``Objective``, not another pipeline: the fields
for it are here, and the values phase reads them in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explaincheck.core.oracle.storm.types import Property

MAX = "max"
MIN = "min"


@dataclass(frozen=True, eq=False)
class Objective:
    """One value column: its name, the optimisation direction, the target states and Storm's
    property for it."""

    name: str  # "V" or "D": the column, and how ``values_method`` names it
    direction: str  # MAX or MIN over the schedulers
    target: np.ndarray  # bool per state: reaching one ends a path as a success (V) or a loss (D)
    prop: Property  # the same quantity as Storm's parsed property
    scheduler: bool = False  # read its optimal choices (V's: the result's scheduler)
    # not asked yet (issue 49): the states a path must not pass before the target ([φ U ψ]:
    # the states outside φ), and a reward per choice row (R{"name"}=? [F φ])
    avoid: np.ndarray | None = None
    rewards: np.ndarray | None = None

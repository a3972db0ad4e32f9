"""Storm's model checking, with its answers as plain Python numbers.

``exact_check`` reads a Rational result as ``Fraction`` values (through their text, which is
exact) and the optimal scheduler as a choice index per state; ``sound_bounds`` asks Storm's
interval iteration for a sound [lower, upper] per state (and its scheduler): where it converges,
the verified method's values and certificate both come from it; ``check_vectors`` checks
several properties at once (step-bounded ones for the myopic picture); ``by_rechecking`` is the
paper's bottleneck definition run literally, kept as the reference of
``bottlenecks.by_dominators``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from explaincheck.core.oracle.storm.structure import ModelStructure
from explaincheck.core.oracle.storm.types import CheckResult, PrismProgram, Property, SparseModel


def storm_fraction(value: object) -> Fraction:
    """A Storm Rational (or float) as a ``Fraction``: its text is exact ("2511/8000")."""
    return Fraction(str(value))


def exact_check(
    model: SparseModel, prop: Property, size: int, *, scheduler: bool = False
) -> tuple[list[Fraction], list[int] | None]:
    """Exact values of ``prop`` per state (an exact model) and, when asked, the scheduler's
    choice index per state (0 everywhere for a DTMC, which has no scheduler)."""
    import stormpy

    result = stormpy.model_checking(model, prop, extract_scheduler=scheduler)
    values = [storm_fraction(result.get_value(s)) for s in range(size)]
    return values, (_scheduler_choices(result, size) if scheduler else None)


SOUND_PRECISION = 1e-12  # absolute width Storm's interval iteration stops at
SOUND_WORK = 3 * 10**8  # iterations × transitions Storm may spend before it stops unconverged
SOUND_ITERATIONS = (2_000, 100_000)  # the least and the most iterations, whatever the size


@dataclass(frozen=True)
class SoundBounds:
    """Storm's lower and upper bound per state, whether they met the precision (unconverged
    bounds are still sound, only wider), and the most iterations Storm was allowed: its float
    arithmetic rounds, so a user widens the bounds by that many rounding errors
    (``certificate.storm_round_off``). ``scheduler``: Storm's choice per state (an index into
    the state's choices), when it was asked for."""

    lower: np.ndarray
    upper: np.ndarray
    converged: bool
    iterations: int
    scheduler: np.ndarray | None = None


def sound_iterations(transitions: int) -> int:
    """How many iterations interval iteration may take on a model of this many transitions:
    a fixed amount of work, so an unconverging model costs about as much as a converging one
    of its size (a slippery gridworld's near-end components keep the upper bound high for
    hundreds of thousands of iterations; more buy nothing there)."""
    low, high = SOUND_ITERATIONS
    return int(min(high, max(low, SOUND_WORK // max(transitions, 1))))


def transitions_of(model: SparseModel) -> int:
    """The model's transitions (entries of its matrix): what ``sound_iterations`` is sized by."""
    return int(model.transition_matrix.nr_entries)


def sound_bounds(
    model: SparseModel, prop: Property, *, iterations: int | None = None, scheduler: bool = False
) -> SoundBounds | None:
    """Storm's interval iteration (sound: it brackets the fixed point from below and above,
    with maximal end components collapsed first) on a float model, read in bulk; None when
    Storm gives no bounds (a property it answers by graph analysis alone still gives them).
    ``iterations``: the most it may take (default ``sound_iterations``); ``scheduler``: also
    read Storm's optimal choice per state (for Pmax, one that leaves end components)."""
    import stormpy
    from stormpy.environments import MinMaxMethod

    environment = stormpy.Environment()
    environment.solver().force_soundness = True
    settings = environment.solver().min_max()
    settings.method = MinMaxMethod.INTERVAL_ITERATION
    settings.precision = stormpy.Rational(SOUND_PRECISION)
    settings.relative_termination_criterion = False
    if iterations is None:
        iterations = sound_iterations(transitions_of(model))
    settings.maximal_number_of_iterations = iterations
    result = stormpy.model_checking(
        model, prop, environment=environment, extract_scheduler=scheduler
    )
    if not (result.has_lower_bounds() and result.has_upper_bounds()):
        return None
    lower = np.asarray(result.get_lower_bound_vector(), dtype=float)
    upper = np.asarray(result.get_upper_bound_vector(), dtype=float)
    converged = bool(np.max(upper - lower, initial=0.0) <= 2 * SOUND_PRECISION)
    chosen = None
    if scheduler:
        chosen = np.asarray(_scheduler_choices(result, len(lower)), dtype=np.int64)
    return SoundBounds(lower, upper, converged, iterations, chosen)


def _scheduler_choices(result: CheckResult, size: int) -> list[int]:
    if not result.has_scheduler():  # a DTMC: one choice per state, Storm keeps no scheduler
        return [0] * size
    chosen = result.get_scheduler()
    return [int(chosen.get_choice(s).get_deterministic_choice()) for s in range(size)]


def check_vectors(
    model: SparseModel, program: PrismProgram, text: str, size: int, *, exact: bool
) -> list[list[Fraction] | list[float]]:
    """The values per state of each property of ``text`` (``;``-separated), as fractions on an
    exact model, floats otherwise."""
    import stormpy

    vectors: list[list[Fraction] | list[float]] = []
    for prop in stormpy.parse_properties(text, program):
        result = stormpy.model_checking(model, prop)
        if exact:
            vectors.append([storm_fraction(result.get_value(s)) for s in range(size)])
        else:
            vectors.append([float(result.get_value(s)) for s in range(size)])
    return vectors


def by_rechecking(model: SparseModel, structure: ModelStructure, goal_label: str) -> set[int]:
    """Reference: make each candidate absorbing and re-check Pmax [F goal] from s0 with Storm.

    Uses Storm's classic value iteration (the default of Storm 1.x, as in the paper): only
    whether Pmax(s0) is 0 matters, and Storm decides that exactly by graph analysis before any
    iteration. Storm 2.0's default sound engine stalls for minutes on some absorbing copies.
    """
    import stormpy
    from stormpy.environments import Environment

    goal = structure.with_label(goal_label)
    formula = stormpy.parse_properties(f'Pmax=? [F "{goal_label}"]')[0]
    environment = Environment()
    base = stormpy.model_checking(model, formula, environment=environment)
    if float(base.get_value(structure.initial)) == 0:
        return set()
    result = set()
    for candidate in range(structure.size):
        if candidate == structure.initial or goal[candidate]:
            continue
        modified = _absorbing_copy(model, structure, candidate)
        checked = stormpy.model_checking(modified, formula, environment=environment)
        value = checked.get_value(structure.initial)
        if float(value) == 0:
            result.add(candidate)
    return result


def _absorbing_copy(model: SparseModel, structure: ModelStructure, absorbing: int) -> SparseModel:
    """The same MDP with every choice of ``absorbing`` replaced by one self-loop."""
    from stormpy.datastructures import SparseMatrixBuilder
    from stormpy.models import SparseMdp, SparseModelComponents

    # Explicit dimensions: inferred ones stop at the largest column that has an entry, which
    # drops the last state when nothing leads to it (e.g. an initial state numbered last).
    rows = sum(1 if s == absorbing else len(cs) for s, cs in enumerate(structure.choices))
    entries = sum(
        1 if s == absorbing else sum(len(c.probabilities) for c in cs)
        for s, cs in enumerate(structure.choices)
    )
    builder = SparseMatrixBuilder(
        rows=rows,
        columns=structure.size,
        entries=entries,
        force_dimensions=True,
        has_custom_row_grouping=True,
        row_groups=structure.size,
    )
    row = 0
    for state, state_choices in enumerate(structure.choices):
        builder.new_row_group(row)
        if state == absorbing:
            builder.add_next_value(row, state, 1.0)
            row += 1
            continue
        for choice in state_choices:
            for successor in sorted(choice.probabilities):
                builder.add_next_value(row, successor, float(choice.probabilities[successor]))
            row += 1
    matrix = builder.build()
    components = SparseModelComponents(transition_matrix=matrix, state_labeling=model.labeling)
    return SparseMdp(components)

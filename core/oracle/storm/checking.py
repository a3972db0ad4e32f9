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


SOUND_PRECISION = 1e-12  # absolute width Storm's sound engines stop at
SOUND_WORK = 3 * 10**8  # iterations × transitions Storm may spend before it stops unconverged
SOUND_ITERATIONS = (2_000, 100_000)  # the least and the most iterations, whatever the size
INTERVAL_ITERATION = "interval iteration"
TOPOLOGICAL = "topological"  # Storm's default sound engine: SCCs in order, each solved alone


@dataclass(frozen=True)
class SoundBounds:
    """Storm's lower and upper bound per state, whether they met the precision (unconverged
    bounds are still sound, only wider), and how many float steps each value may have taken:
    its float arithmetic rounds, so a user widens the bounds by that many rounding errors
    (``certificate.storm_round_off``). For interval iteration that is the most iterations Storm
    was allowed; for the topological engine on a model without cycles the caller sets it from
    the model's depth (``graph_analysis.acyclic_depth``). ``scheduler``: Storm's choice per
    state (an index into the state's choices), when it was asked for; ``engine``: which of
    Storm's sound engines gave them."""

    lower: np.ndarray
    upper: np.ndarray
    converged: bool
    iterations: int
    scheduler: np.ndarray | None = None
    engine: str = INTERVAL_ITERATION


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
    model: SparseModel,
    prop: Property,
    *,
    iterations: int | None = None,
    scheduler: bool = False,
    engine: str = INTERVAL_ITERATION,
    first_row: np.ndarray | None = None,
) -> SoundBounds | None:
    """Storm's sound bounds on a float model, read in bulk; None when Storm gives none.

    ``engine``: ``INTERVAL_ITERATION`` brackets the fixed point from below and above over the
    whole model, maximal end components collapsed first; ``TOPOLOGICAL`` is Storm's default
    sound engine, which solves the strongly connected components one after the other in
    topological order (a component of one state directly, a larger one by optimistic value
    iteration): on a model without cycles each state is solved once. Bounds it did not find
    (an optimistic iteration that gave up) are the trivial 0 and 1, and not converged.
    ``iterations``: the most it may take (default ``sound_iterations``); ``scheduler``: also
    read Storm's optimal choice per state (for Pmax, one that leaves end components), given
    the first row of each state's choices (``first_row``, read from the model if not given)."""
    import stormpy
    from stormpy.environments import MinMaxMethod, sound

    environment = sound() if engine == TOPOLOGICAL else stormpy.Environment()
    environment.solver().force_soundness = True
    settings = environment.solver().min_max()
    if engine == INTERVAL_ITERATION:
        settings.method = MinMaxMethod.INTERVAL_ITERATION
    settings.precision = stormpy.Rational(SOUND_PRECISION)
    settings.relative_termination_criterion = False
    if iterations is None:
        iterations = sound_iterations(transitions_of(model))
    settings.maximal_number_of_iterations = iterations
    result = stormpy.model_checking(
        model, prop, environment=environment, extract_scheduler=scheduler
    )
    size = model.nr_states
    has_lower, has_upper = result.has_lower_bounds(), result.has_upper_bounds()
    if not (has_lower or has_upper):
        return None
    lower = _bound_vector(result, size, upper=False) if has_lower else np.zeros(size)
    upper = _bound_vector(result, size, upper=True) if has_upper else np.ones(size)
    converged = has_lower and has_upper
    converged = converged and bool(np.max(upper - lower, initial=0.0) <= 2 * SOUND_PRECISION)
    chosen = None
    if scheduler:
        if first_row is None:
            first_row = np.asarray(model.nondeterministic_choice_indices, dtype=np.int64)
        chosen = scheduler_choices(result, first_row)
    return SoundBounds(lower, upper, converged, iterations, chosen, engine)


def _bound_vector(result: CheckResult, size: int, *, upper: bool) -> np.ndarray:
    """One of a result's bound vectors; the trivial bound where Storm cannot give it."""
    try:
        found = result.get_upper_bound_vector() if upper else result.get_lower_bound_vector()
    except RuntimeError:  # "Unable to retrieve unknown ... bounds"
        return np.ones(size) if upper else np.zeros(size)
    return np.asarray(found, dtype=float)


def scheduler_choices(result: CheckResult, first_row: np.ndarray) -> np.ndarray:
    """The scheduler's choice per state (an index into the state's choices), read in bulk:
    the rows it takes, as one bit vector over the rows (0 everywhere for a DTMC, which has no
    scheduler). ``first_row``: each state's first row, and the number of rows last."""
    from explaincheck.core.oracle.storm.bulk import bits_to_array

    size = len(first_row) - 1
    if not result.has_scheduler():
        return np.zeros(size, dtype=np.int64)
    support = result.get_scheduler().compute_action_support(first_row.astype(np.uint64))
    taken = np.flatnonzero(bits_to_array(support, int(first_row[-1])))
    state_of = np.repeat(np.arange(size), np.diff(first_row))
    chosen = np.zeros(size, dtype=np.int64)
    chosen[state_of[taken]] = taken - first_row[state_of[taken]]
    return chosen


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

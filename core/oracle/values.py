"""V, D and Q for every state, by one of two methods.

* ``exact``: Storm's Rational engine gives V and D as fractions; Q is summed exactly here
  (``exact_arrays``, on the model's columns).
* ``verified`` (models too large for rationals): Storm's sound engines first
  (``sound_values.py``); where none converges, policy iteration on Storm's float model, started
  from Storm's scheduler (its unconverged interval iteration's choices), else from the
  attractor policy (per state, the action most likely to step closer to the goal). Each policy is
  evaluated by a sparse direct solve of its Markov chain (error ~1e-12, where value iteration
  stops at ~1e-6): by SciPy's SuperLU one strongly connected component of the chain at a time,
  a component that did not change keeping its factors, a large one from the third round on in
  a nested-dissection order of its own (``block_solve``), or by MKL's PARDISO on one pattern
  analysed once where the extra is installed (``policy_systems``);
  zeros are pinned exactly by graph analysis, and iteration stops only when no action improves
  on the values by more than 1e-12 (the Bellman residual, reported). A value that is attained by a
  policy and is a Bellman fixed point is the optimum, so the result is exact up to the solver's
  round-off. The improvement step is vectorised (numpy segment reductions), never a loop
  over states.
  The danger D = Pmin [F unsafe] is computed as 1 - Pmax [F Z], Z = states that can avoid
  unsafe forever, so both quantities are maximal-reachability problems; D's iteration starts
  from V's optimal policy (one round on the gridworlds, where Storm's scheduler needed ~30).

On near-degenerate models the rounds grow with the model's diameter: on the slippery
gridworld, plateaus of states whose values differ by 1e-11..1e-9 flip their best action one
ring per round (34, 55, 96 rounds at 10^4, 4·10^4, 10^5 states). They stay from a start
within 1.1e-9 of the optimum, and a coarser stopping gain adds rounds and error (docs/method.md,
"How many rounds"). Value-iteration look-ahead between the solves was tried and rejected: its
greedy policies linger and lose value, and with a margin it cycles.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
from scipy.sparse import csr_matrix, identity, spmatrix
from scipy.sparse.linalg import splu

from explaincheck.core.oracle import pardiso
from explaincheck.core.oracle.arrays import ChoiceArrays, choice_arrays, reaching
from explaincheck.core.oracle.block_solve import BlockSolver
from explaincheck.core.oracle.graph_analysis import can_avoid_forever_arrays
from explaincheck.core.oracle.pardiso import PardisoError
from explaincheck.core.oracle.policy_systems import PolicySystems
from explaincheck.core.oracle.storm.checking import SoundBounds, exact_check
from explaincheck.core.oracle.storm.structure import ModelStructure
from explaincheck.core.oracle.storm.types import SparseModel

if TYPE_CHECKING:
    from explaincheck.core.oracle.objective import Objective
    from explaincheck.core.oracle.types import Progress

TIE_TOLERANCE = 1e-9  # verified method: Q values closer than this count as tied
START = "the attractor policy"  # where policy iteration starts without Storm's scheduler
STORM_START = "Storm's scheduler"  # ... and with it (``value_by_iteration``'s ``start``)
ORDER_FROM_ROUND = 3  # policy iteration rounds from which the solves use a nested-dissection order
PARDISO_FROM = 20_000  # states to solve from which PARDISO (if installed) replaces SuperLU
# the factorisers, as the values' words name them
SUPERLU, PARDISO = "SuperLU, a strongly connected component at a time", "MKL's PARDISO"


@dataclass
class Values:
    """Numbers per state; ``q[s][i]`` belongs to ``structure.choices[s][i]``."""

    value: list[float]
    danger: list[float] | None
    q: list[list[float]]
    scheduler: list[int]  # optimal choice index per state (for V)
    value_exact: list[Fraction] | None = None
    danger_exact: list[Fraction] | None = None
    q_exact: list[list[Fraction]] | None = None
    residual: float = 0.0
    rounds: int = 0  # policy evaluations of the verified method (V and D together)
    danger_policy: np.ndarray | None = None  # the verified method's policy of Pmax [F Z]
    words: str = ""  # how the verified numbers were obtained (``ValueArrays.words``)


# ---------------------------------------------------------------- exact (Storm Rational engine)


@dataclass(frozen=True)
class ExactAnswers:
    """Storm's Rational engine's fractions per objective, and the first one's scheduler."""

    values: list[list[Fraction]]
    scheduler: list[int]


def exact_answers(model: SparseModel, objectives: list[Objective], size: int) -> ExactAnswers:
    """Each objective's exact values from Storm's Rational engine (the first's with its
    scheduler), asked while Storm's model is alive."""
    values = []
    scheduler: list[int] = [0] * size
    for index, objective in enumerate(objectives):
        found, chosen = exact_check(model, objective.prop, size, scheduler=index == 0)
        values.append(found)
        if chosen is not None:
            scheduler = chosen
    return ExactAnswers(values, scheduler)


def exact_arrays(
    arrays: ChoiceArrays, probabilities: list[Fraction], storm: ExactAnswers
) -> ValueArrays:
    """The exact method on the model's columns: V (and D) as Storm's fractions, Q per choice
    row summed exactly from the exact ``probabilities`` (one per entry of ``arrays.rows``)."""
    value_exact = storm.values[0]
    danger_exact = storm.values[1] if len(storm.values) > 1 else None
    offsets = arrays.rows.indptr.tolist()
    columns = arrays.rows.indices.tolist()
    q_exact = [
        sum(
            (probabilities[k] * value_exact[columns[k]] for k in range(low, high)),
            Fraction(0),
        )
        for low, high in itertools.pairwise(offsets)
    ]
    return ValueArrays(
        value=np.array([float(v) for v in value_exact], dtype=float),
        danger=np.array([float(d) for d in danger_exact], dtype=float)
        if danger_exact is not None
        else None,
        q=np.array([float(x) for x in q_exact], dtype=float),
        scheduler=np.asarray(storm.scheduler, dtype=np.int64),
        residual=0.0,
        rounds=0,
        words="exact rationals (Storm's Rational engine); Q summed exactly",
        value_exact=value_exact,
        danger_exact=danger_exact,
        q_exact=q_exact,
    )


# ---------------------------------------------------------------- verified float method


def _refined_solve(matrix: spmatrix, rhs: np.ndarray, steps: int = 1) -> np.ndarray:
    """x with ``matrix @ x = rhs``: one sparse LU factorisation, then ``steps`` of iterative
    refinement with it. A chain that lingers is ill-conditioned, and a bare LU solve is then off
    by ~1e-9: policy iteration reads that noise as improvements and churns for dozens of rounds
    on gains of 1e-10; refined, the error falls to round-off and the churn stops. One step is
    enough: a second one changed no round count on the gridworlds and costs a solve per round.

    ``matrix`` is I - (a substochastic matrix), a row diagonally dominant M-matrix, so the
    elimination needs no pivoting (``diag_pivot_thresh=0`` keeps SuperLU on the diagonal and
    the fill low)."""
    matrix = matrix.tocsc()
    factor = splu(matrix, permc_spec="COLAMD", diag_pivot_thresh=0.0)
    x = factor.solve(rhs)
    for _ in range(steps):
        residual = rhs - matrix @ x
        if not np.any(residual):
            break
        x = x + factor.solve(residual)
    return np.atleast_1d(x)


def _evaluate(
    arrays: ChoiceArrays,
    policy: np.ndarray,
    fixed: np.ndarray,
    zero: np.ndarray,
    systems: PolicySystems | None = None,
    factorisers: list[str] | None = None,
    blocks: BlockSolver | None = None,
) -> np.ndarray:
    """Values of the chain induced by ``policy``: ``fixed`` states (value 1) keep it, states
    that cannot reach one under the policy get 0, the rest are solved: by PARDISO on
    ``systems``' fixed pattern when given, else by SuperLU, block by block (``blocks``, which
    keeps the factors of the blocks that did not change for the next round).
    ``factorisers`` is told which did it (``SUPERLU`` or ``PARDISO``), for the values' words."""
    said = factorisers if factorisers is not None else []
    chain = arrays.rows[arrays.first_row[:-1] + policy]
    values = fixed.astype(float)
    pattern = chain.copy()
    pattern.data = (pattern.data > 0).astype(np.int8)
    reach = reaching(pattern, fixed)
    free = reach & ~fixed & ~zero
    if systems is not None:
        try:
            values[systems.states] = np.clip(systems.values(policy, free), 0.0, 1.0)
            said.append(PARDISO)
            return values
        except PardisoError:  # a pivot it would perturb, or no memory left: this round by SuperLU
            pass
    index = np.flatnonzero(free)
    said.append(SUPERLU)
    if len(index):
        sub = chain[index]
        rhs = sub @ values
        square = sub[:, index]
        system = (identity(len(index), format="csr") - square).tocsr()
        chosen = arrays.first_row[index] + policy[index]  # the model's rows: they name blocks
        solved = (blocks or BlockSolver(helper=False)).solve(system, rhs, index, chosen)
        values[index] = np.clip(solved, 0.0, 1.0)
    return values


def _optimise(
    arrays: ChoiceArrays,
    policy: np.ndarray,
    fixed: np.ndarray,
    zero: np.ndarray,
    factorisers: list[str] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int]:
    """Maximising policy iteration from ``policy`` until no choice improves by more than
    round-off; returns values, Q per row, the policy, the Bellman residual and the rounds
    (``factorisers``: told which factoriser solved each round)."""
    first = arrays.first_row[:-1]
    has_rows = np.diff(arrays.first_row) > 0
    free = ~fixed & ~zero & has_rows
    rows_index = np.arange(arrays.rows.shape[0])
    systems = None
    blocks = BlockSolver()
    try:
        for rounds in range(1, 1001):
            if rounds == ORDER_FROM_ROUND:  # the orders cost ~2 solves; they pay from here on
                systems = _pardiso_systems(arrays, fixed, zero)
                blocks.ordered = True
                if systems is not None:  # PARDISO's from here on: SuperLU's factors go now
                    blocks.close()
            values = _evaluate(arrays, policy, fixed, zero, systems, factorisers, blocks)
            q = arrays.rows @ values
            best = np.full(arrays.size, -np.inf)
            best[has_rows] = np.maximum.reduceat(q, first[has_rows])
            gain = best - values
            improvable = free & (gain > 1e-12)
            if not improvable.any():
                residual = float(np.max(np.abs(gain[free]), initial=0.0))
                return values, q, policy, residual, rounds
            # first row of each state attaining its best Q (ties keep model order)
            attains = q >= best[arrays.state_of_row]
            candidate = np.where(attains, rows_index, np.iinfo(np.int64).max)
            argbest = np.minimum.reduceat(candidate, first[has_rows]) - first[has_rows]
            chosen = np.zeros(arrays.size, dtype=np.int64)
            chosen[has_rows] = argbest
            policy = np.where(improvable, chosen, policy)
        raise RuntimeError("policy iteration did not converge in 1000 rounds")
    finally:  # whether it converged or not: the factors freed, the helper thread stopped
        blocks.close()
        if systems is not None:
            systems.close()


def _pardiso_systems(
    arrays: ChoiceArrays, fixed: np.ndarray, zero: np.ndarray
) -> PolicySystems | None:
    """PARDISO's fixed-pattern systems where MKL is installed and the model has at least
    ``PARDISO_FROM`` states to solve (below, SuperLU's analysis costs less than PARDISO's) and
    PARDISO's analysis succeeds."""
    if int((~fixed & ~zero).sum()) < PARDISO_FROM or not pardiso.available():
        return None
    try:
        return PolicySystems(arrays, fixed, zero)
    except PardisoError:  # its analysis failed (no memory for it, say): SuperLU throughout
        return None


def _attractor_policy(arrays: ChoiceArrays, target: np.ndarray) -> np.ndarray:
    """Per state, the choice with most probability of stepping closer (in graph distance) to
    ``target``: a policy that reaches it quickly wherever possible, so policy iteration starts
    from a well-conditioned chain instead of one that lingers for astronomically long."""
    from scipy.sparse.csgraph import shortest_path

    n = arrays.size
    reverse = arrays.state_graph.T.tocsr()
    ones = np.ones(int(target.sum()), dtype=np.int8)
    extra = csr_matrix(
        (ones, (np.full(len(ones), n), np.flatnonzero(target))), shape=(n + 1, n + 1)
    )
    augmented = csr_matrix(
        (reverse.data, reverse.indices, np.concatenate([reverse.indptr, [reverse.indptr[-1]]])),
        shape=(n + 1, n + 1),
    )
    augmented = (augmented + extra).tocsr()
    distance = shortest_path(augmented, unweighted=True, indices=n)[:n] - 1
    entry_state = arrays.entry_states()
    closer = distance[arrays.rows.indices] < distance[entry_state]
    weights = np.where(closer, arrays.rows.data, 0.0)
    row_sums = np.add.reduceat(weights, arrays.rows.indptr[:-1]) if len(weights) else weights
    row_sums[np.diff(arrays.rows.indptr) == 0] = 0.0
    has_rows = np.diff(arrays.first_row) > 0
    first = arrays.first_row[:-1][has_rows]
    best = np.full(n, -np.inf)
    best[has_rows] = np.maximum.reduceat(row_sums, first)
    candidate = np.where(
        row_sums >= best[arrays.state_of_row], np.arange(len(row_sums)), np.iinfo(np.int64).max
    )
    policy = np.zeros(n, dtype=np.int64)
    policy[has_rows] = np.minimum.reduceat(candidate, first) - first
    return policy


@dataclass
class ValueArrays:
    """The values phase's numbers as flat arrays (``q`` per choice row), for either method."""

    value: np.ndarray
    danger: np.ndarray | None
    q: np.ndarray
    scheduler: np.ndarray
    residual: float
    rounds: int
    rounds_danger: int = 0
    danger_policy: np.ndarray | None = None  # the optimal policy of Pmax [F Z], D = 1 - it
    words: str = ""  # how the numbers were obtained, when not by policy iteration alone
    # Storm's sound bounds of V and of D where it gave them (the certificate's first source)
    storm: tuple[SoundBounds | None, SoundBounds | None] = (None, None)
    # the exact method's fractions: V and D per state, Q per choice row
    value_exact: list[Fraction] | None = None
    danger_exact: list[Fraction] | None = None
    q_exact: list[Fraction] | None = None


def value_by_iteration(
    arrays: ChoiceArrays,
    goal: np.ndarray,
    start: np.ndarray | None = None,
    factorisers: list[str] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int]:
    """V = Pmax [F goal] by policy iteration from ``start`` (a choice per state: Storm's
    scheduler), else from the attractor policy: values, Q per row, the optimal policy, the
    Bellman residual and the rounds."""
    policy = _attractor_policy(arrays, goal) if start is None else _within(arrays, start)
    dead = ~reaching(arrays.state_graph, goal)
    return _optimise(arrays, policy, goal, dead, factorisers)


def _within(arrays: ChoiceArrays, policy: np.ndarray) -> np.ndarray:
    """``policy`` with every choice index inside its state's choices (0 where it has none)."""
    return np.maximum(np.minimum(policy, np.diff(arrays.first_row) - 1), 0).astype(np.int64)


def danger_by_iteration(
    arrays: ChoiceArrays,
    unsafe: np.ndarray,
    start: np.ndarray,
    factorisers: list[str] | None = None,
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """D = Pmin [F unsafe] as 1 - Pmax [F Z] by policy iteration from ``start`` (V's optimal
    policy: the policy that best reaches the goal mostly also best avoids unsafe, since goal
    states can avoid it forever; on the gridworlds one round confirms it, where Storm's value
    iteration scheduler for Pmax [F Z] needed 30 rounds of corrections): D, the policy of
    Pmax [F Z], the residual and the rounds."""
    safe = can_avoid_forever_arrays(arrays, unsafe)
    cannot_reach_safe = ~reaching(arrays.state_graph, safe)
    escape, _, policy, residual, rounds = _optimise(
        arrays, start.copy(), safe, cannot_reach_safe, factorisers
    )
    return 1.0 - escape, policy, residual, rounds


def verified_arrays(
    arrays: ChoiceArrays,
    goal: np.ndarray,
    unsafe: np.ndarray | None,
    progress: Progress | None = None,
) -> ValueArrays:
    """V (and D when ``unsafe`` is given) by policy iteration on ``arrays``, started from the
    attractor policy."""
    report = progress or (lambda phase, **counts: None)
    report("values", states=arrays.size)
    value, q_flat, policy, residual, rounds = value_by_iteration(arrays, goal)
    danger = None
    danger_policy = None
    rounds_d = 0
    if unsafe is not None:
        report("danger", states=arrays.size)
        danger, danger_policy, residual_d, rounds_d = danger_by_iteration(arrays, unsafe, policy)
        residual = max(residual, residual_d)
    return ValueArrays(
        value, danger, q_flat, policy, residual, rounds + rounds_d, rounds_d, danger_policy
    )


def values_of(arrays: ChoiceArrays, found: ValueArrays) -> Values:
    """``found`` as per-state lists (the small-model path of ``ModelStructure``)."""
    bounds = arrays.first_row
    q = [found.q[bounds[s] : bounds[s + 1]].tolist() for s in range(arrays.size)]
    return Values(
        found.value.tolist(),
        found.danger.tolist() if found.danger is not None else None,
        q,
        found.scheduler.tolist(),
        residual=found.residual,
        rounds=found.rounds,
        danger_policy=found.danger_policy,
        words=found.words,
    )


def verified_values(
    structure: ModelStructure,
    has_danger: bool,
    goal: list[bool],
    unsafe: list[bool] | None,
    arrays: ChoiceArrays | None = None,
    progress: Progress | None = None,
) -> Values:
    """``verified_arrays`` as per-state lists (the small-model path of ``ModelStructure``)."""
    arrays = arrays or choice_arrays(structure)
    found = verified_arrays(
        arrays,
        np.array(goal, dtype=bool),
        np.array(unsafe, dtype=bool) if has_danger and unsafe is not None else None,
        progress,
    )
    return values_of(arrays, found)

"""MKL's PARDISO as policy iteration's factoriser (extra ``pardiso``): the binding solves what
SciPy solves, the fixed-pattern systems give SuperLU's values (0 where a state cannot reach the
target under the policy), a whole policy iteration agrees with SuperLU's, and without MKL, or
on a pivot PARDISO had to perturb or any other failure of it, SuperLU does the work."""

from __future__ import annotations

import numpy as np
import pytest
from oracle_helpers import gridworld_arrays
from scipy.sparse import csr_matrix
from scipy.sparse.linalg import spsolve

from explaincheck.core.oracle import pardiso, values
from explaincheck.core.oracle.arrays import reaching
from explaincheck.core.oracle.pardiso import PardisoError, PatternFactor, PivotPerturbed
from explaincheck.core.oracle.policy_systems import PolicySystems
from explaincheck.core.oracle.sound_values import _iteration_words
from explaincheck.core.oracle.values import _attractor_policy, _evaluate, value_by_iteration

needs_mkl = pytest.mark.skipif(
    not pardiso.available(), reason="MKL is not installed (extra 'pardiso')"
)


@pytest.fixture(scope="module")
def grid30(tmp_path_factory):
    return gridworld_arrays(tmp_path_factory.mktemp("grid"), 30)


@needs_mkl
def test_the_binding_solves_a_system_as_scipy_does():
    # I - P of a 3-state chain with a self-loop, an M-matrix as policy iteration's are
    matrix = csr_matrix(np.array([[1.0, -0.5, -0.25], [-0.2, 0.9, -0.3], [0.0, -0.6, 1.0]]))
    rhs = np.array([0.25, 0.1, 0.4])
    factor = PatternFactor(matrix)
    factor.factor(matrix.data)
    assert np.abs(factor.solve(rhs) - spsolve(matrix.tocsc(), rhs)).max() <= 1e-15
    # the same pattern with other numbers: refactorised without a new analysis
    other = matrix.copy()
    other.data = other.data * np.array([2.0, 1, 1, 1, 3.0, 1, 1, 2.0])
    factor.factor(other.data)
    assert np.abs(factor.solve(rhs) - spsolve(other.tocsc(), rhs)).max() <= 1e-15
    factor.close()


@needs_mkl
def test_a_zero_pivot_is_refused_not_perturbed():
    # I - P of two states that swap forever and never reach a target: singular; PARDISO would
    # perturb the zero pivot and factorise another matrix, so the round goes to SuperLU
    closed = csr_matrix(np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    factor = PatternFactor(closed)
    with pytest.raises(PivotPerturbed, match="1 pivots perturbed"):
        factor.factor(closed.data)
    with pytest.raises(RuntimeError, match="factor"):
        PatternFactor(closed).solve(np.ones(3))


@needs_mkl
def test_the_fixed_pattern_gives_superlus_values_for_any_policy(grid30):
    arrays, goal = grid30
    zero = ~reaching(arrays.state_graph, goal)
    systems = PolicySystems(arrays, goal, zero)
    rng = np.random.default_rng(7)
    choices = np.diff(arrays.first_row)
    policies = [_attractor_policy(arrays, goal)] + [rng.integers(0, choices) for _ in range(3)]
    lost = 0
    for policy in policies:
        by_superlu = _evaluate(arrays, policy, goal, zero)
        by_pardiso = _evaluate(arrays, policy, goal, zero, systems=systems)
        assert np.abs(by_superlu - by_pardiso).max() <= 1e-12
        lost += int(((by_superlu == 0) & ~zero & ~goal).sum())
    assert by_pardiso[goal].min() == 1.0 and by_pardiso[zero].max() == 0.0
    # some random policy traps states away from the goal: their identity rows give exactly 0
    assert lost > 0
    systems.close()


@needs_mkl
def test_policy_iteration_with_pardiso_agrees_with_superlu(grid30, monkeypatch):
    arrays, goal = grid30
    value_lu, q_lu, _, _, rounds_lu = value_by_iteration(arrays, goal)
    monkeypatch.setattr(values, "PARDISO_FROM", 0)
    used = []
    original = PolicySystems.values

    def counting(self, policy, free):
        used.append(1)
        return original(self, policy, free)

    monkeypatch.setattr(PolicySystems, "values", counting)
    factorisers: list[str] = []
    value, q, _, residual, rounds = value_by_iteration(arrays, goal, None, factorisers)
    assert factorisers == [values.SUPERLU] * 2 + [values.PARDISO] * (rounds - 2)
    words = _iteration_words("V", rounds, residual, None, factorisers)
    assert (
        f"{rounds} sparse direct solves (SuperLU, a strongly connected component at a time,"
        " then MKL's PARDISO)"
    ) in words
    assert rounds_lu >= values.ORDER_FROM_ROUND  # PARDISO takes over from that round
    assert len(used) == rounds - values.ORDER_FROM_ROUND + 1
    assert 0.5 < value[0] < 1.0
    assert np.abs(value - value_lu).max() <= 1e-11
    assert np.abs(q - q_lu).max() <= 1e-11
    assert residual <= 1e-12 and abs(rounds - rounds_lu) <= 2


def test_without_mkl_superlu_solves(grid30, monkeypatch, tmp_path):
    arrays, goal = grid30
    pardiso.library.cache_clear()
    monkeypatch.setenv(pardiso.ENVIRONMENT, str(tmp_path / "no-libmkl_rt.so"))
    monkeypatch.setattr(values, "PARDISO_FROM", 0)
    try:
        assert pardiso.library() is None and not pardiso.available()
        assert values._pardiso_systems(arrays, goal, np.zeros_like(goal)) is None
        factorisers: list[str] = []
        value, *_ = value_by_iteration(arrays, goal, None, factorisers)
        assert 0.5 < value[0] < 1.0
        assert set(factorisers) == {values.SUPERLU}
        with pytest.raises(RuntimeError, match="pip install 'explaincheck\\[pardiso\\]'"):
            PatternFactor(csr_matrix(np.eye(2)))
    finally:
        monkeypatch.delenv(pardiso.ENVIRONMENT)
        pardiso.library.cache_clear()


@pytest.mark.parametrize(
    "failure", [PivotPerturbed("1 pivots perturbed"), PardisoError("phase 22 failed with error -2")]
)
def test_a_round_pardiso_fails_is_solved_by_superlu(grid30, failure):
    arrays, goal = grid30
    zero = ~reaching(arrays.state_graph, goal)

    class Failing:
        states = np.flatnonzero(~goal & ~zero)

        def values(self, policy, free):
            raise failure

    policy = _attractor_policy(arrays, goal)
    fallback = _evaluate(arrays, policy, goal, zero, systems=Failing())  # type: ignore[arg-type]
    assert np.array_equal(fallback, _evaluate(arrays, policy, goal, zero))


def test_a_failed_analysis_leaves_superlu_for_the_whole_run(grid30, monkeypatch):
    arrays, goal = grid30
    monkeypatch.setattr(values, "PARDISO_FROM", 0)
    monkeypatch.setattr(pardiso, "available", lambda: True)

    def no_memory(*_):
        raise PardisoError("PARDISO phase 11 failed with error -2")

    monkeypatch.setattr(values, "PolicySystems", no_memory)
    assert values._pardiso_systems(arrays, goal, np.zeros_like(goal)) is None
    value, _, _, residual, rounds = value_by_iteration(arrays, goal)
    assert rounds >= values.ORDER_FROM_ROUND and residual <= 1e-12
    assert 0.5 < value[0] < 1.0

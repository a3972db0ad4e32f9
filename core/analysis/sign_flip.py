"""The exact paired test of "the new side is worse" and the interval that agrees with it.

Why one model for both: ``compare`` printed a bootstrap interval beside an exact test, and on a
few pairs the two disagreed (an A/A comparison's which_bottleneck: interval [−1.00, −0.33] on 6
pairs, p = 0.0625). Here the interval is the inversion of the test itself, so its upper end is
below 0 exactly when the test rejects at the interval's level.

The model. Each pair is one distinct case with a score per side (the share of its passing
executions). Of the cases whose scores differ, each went the new side's way or the base's way;
conditional on the sizes |new − base| of those differences, the **test** asks whether the
direction is a fair coin (the exact sign-flip test of the summed difference: with pass/fail
scores, McNemar's exact test). The **interval** widens the coin to a chance θ that a differing
case went the base's way (the same for every case), takes the θ the data do not reject at the
level (each end a one-sided bound), and reports the expected difference new − base under it,
(M/N)·(1 − 2θ), M the summed sizes and N the pairs. With pass/fail scores θ's bounds are the
Clopper–Pearson bounds of the base-only count among the discordant pairs; with shares of
repeats the summed size of the base's wins is a sum of scaled binomials, solved exactly.
Conditional on the differing cases: when none differs the interval is [0, 0].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

import numpy as np
from scipy import optimize, stats

DENOMINATOR = 1000  # a case's score is a share of at most this many executions
ROUND = 12  # interval ends are rounded to this many decimals (an end at 0 stays 0)


@dataclass(frozen=True)
class PairedDifferences:
    """The per-case differences new − base as integers on a common grid: ``sizes[i]`` is the
    size of a differing case's difference in units of 1 / ``scale``, ``worse[i]`` whether the
    base scored higher there."""

    pairs: int
    sizes: np.ndarray  # int, one per differing case
    worse: np.ndarray  # bool, one per differing case
    scale: int

    @classmethod
    def of(cls, base: Sequence[float], new: Sequence[float]) -> PairedDifferences:
        exact = [
            _share(n) - _share(b) for b, n in zip(base, new, strict=True) if _share(n) != _share(b)
        ]
        scale = reduce(math.lcm, (d.denominator for d in exact), 1)
        sizes = np.array([abs(d.numerator) * (scale // d.denominator) for d in exact], dtype=int)
        worse = np.array([d < 0 for d in exact], dtype=bool)
        return cls(len(base), sizes, worse, scale)

    @property
    def binary(self) -> bool:
        """Every differing case differs by a whole pass: McNemar's pass/fail case."""
        return bool(np.all(self.sizes == self.scale))

    @property
    def total(self) -> int:
        """M: the summed sizes of the differences (grid units)."""
        return int(self.sizes.sum())

    @property
    def worse_total(self) -> int:
        """The summed sizes of the cases the base won (grid units)."""
        return int(self.sizes[self.worse].sum())

    def p_worse(self) -> float:
        """One-sided exact p of "the new side is worse": P(the base's wins sum to at least
        what was seen) when each differing case's direction is a fair coin (1 without any)."""
        if not len(self.sizes):
            return 1.0
        if self.binary:
            return float(
                stats.binomtest(int(self.worse.sum()), len(self.sizes), 0.5, "greater").pvalue
            )
        return self._tail(0.5, upper=True)

    def interval(self, level: float) -> tuple[float, float]:
        """(low, high) of the expected difference new − base, each end a one-sided bound at
        ``level``: high < 0 exactly when ``p_worse() < level``."""
        total = self.total
        if total == 0:
            return (0.0, 0.0)
        theta_low, theta_high = self._theta_bounds(level)
        factor = total / (self.scale * self.pairs)
        low, high = factor * (1 - 2 * theta_high), factor * (1 - 2 * theta_low)
        return (round(low, ROUND), round(high, ROUND))

    def _theta_bounds(self, level: float) -> tuple[float, float]:
        """The chance θ that a differing case went the base's way: the smallest and largest
        values the data do not reject, one-sided at ``level`` each."""
        seen, most = self.worse_total, self.total
        if self.binary:
            k, m = int(self.worse.sum()), len(self.sizes)
            low = 0.0 if k == 0 else float(stats.beta.ppf(level, k, m - k + 1))
            high = 1.0 if k == m else float(stats.beta.ppf(1 - level, k + 1, m - k))
            return low, high
        low = 0.0 if seen == 0 else _root(lambda t: self._tail(t, upper=True) - level)
        high = 1.0 if seen == most else _root(lambda t: self._tail(t, upper=False) - level)
        return low, high

    def _tail(self, theta: float, *, upper: bool) -> float:
        """P_θ(the base's wins sum to ≥ what was seen) (``upper``) or ≤ it."""
        pmf = self._distribution(theta)
        seen = self.worse_total
        return float(min(1.0, pmf[seen:].sum() if upper else pmf[: seen + 1].sum()))

    def _distribution(self, theta: float) -> np.ndarray:
        """The distribution of the base's summed wins (grid units) when each differing case
        went its way with chance θ: per size a, a · Binomial(cases of size a, θ), convolved."""
        pmf = np.ones(1)
        sizes, counts = np.unique(self.sizes, return_counts=True)
        for size, count in zip(sizes, counts, strict=True):
            part = np.zeros(int(size) * int(count) + 1)
            part[:: int(size)] = stats.binom.pmf(np.arange(count + 1), count, theta)
            pmf = np.convolve(pmf, part)
        return pmf


def _share(score: float) -> Fraction:
    """A case's score as the fraction it is (passes over executions)."""
    return Fraction(float(score)).limit_denominator(DENOMINATOR)


def _root(function) -> float:  # type: ignore[no-untyped-def]
    """The θ in [0, 1] where the increasing or decreasing tail crosses the level."""
    return float(optimize.brentq(function, 0.0, 1.0, xtol=1e-12))


def smallest_p(pairs: int) -> float:
    """The smallest p any outcome of ``pairs`` pairs can give (every pair the base's way)."""
    return 0.5**pairs


def holm_levels(p_values: Sequence[float], alpha: float) -> list[float]:
    """Each test's level in Holm's step-down procedure, so that "p below its level" is the same
    as "Holm-adjusted p below ``alpha``": α/(m − j + 1) at the j-th smallest p while the steps
    reject; from the first step that does not reject on, that step's level for every later one
    (whose p is no smaller, so it does not reject either)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    levels = [alpha] * m
    stopped: float | None = None
    for step, index in enumerate(order):
        level = alpha / (m - step) if stopped is None else stopped
        if stopped is None and not p_values[index] < level:
            stopped = level
        levels[index] = level
    return levels

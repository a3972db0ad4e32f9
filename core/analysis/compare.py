"""Did the new campaign get worse than the base? Two results files paired case by case, with a gate.

Why paired: both campaigns asked the same cases (same environment, model, category, states and
wording), whose verdicts are exact; a case the base passed and the new side fails is evidence of
a regression, a case both pass or both fail says nothing. The pairing is the paired tests' own
(``paired.paired_outcomes``: one pair per distinct case, repeats and both selections aggregated
into a score first); cases present on one side only are counted and left out.

Per category and over all pairs: the paired 2×2 (both pass, base only, new only, both fail:
counts of cases with pass/fail scores, summed shares with scores of several executions, so that
each pass rate is its side's "both" plus its "only" over the pairs), both pass rates, the
difference new − base, the one-sided exact test of "new is worse" (``sign_flip``: McNemar's
exact test on pass/fail scores) and the interval that inverts that test. Holm's correction runs
over the categories and the overall line together (one family, so the gate's chance of a false
alarm is at most α), and each line's interval is taken at its level in Holm's procedure
(``sign_flip.holm_levels``), so its upper end lies below 0 exactly when its Holm p is below α:
the interval never contradicts the verdict. Below the pair count at which the test can reach
that level the interval is none ("–"), as the mde is. The gate (docs/method.md, "Comparing two
campaigns"): a category — or the overall line — is a **regression** when its Holm p is below α
and, with ``max_drop`` > 0, the whole interval of the drop lies beyond ``max_drop``. Each line
carries the smallest drop the test detects with power 0.8 at its pair count (``mde``), so a
suite too small to see a drop is never read as "no regression".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from explaincheck.core.analysis.layout import order_categories
from explaincheck.core.analysis.paired import (
    OVERALL,
    PAIR_KEYS,
    paired_outcomes,
    question_identity,
)
from explaincheck.core.analysis.sign_flip import PairedDifferences, holm_levels, smallest_p
from explaincheck.core.analysis.stability import UNSCORED, flaky_keys
from explaincheck.core.errors import ExplaincheckError

ALPHA = 0.05
POWER = 0.8
BASE, NEW = "base", "new"
INTERVAL = (
    "new − base, exact: the inversion of the one-sided test (Clopper–Pearson on the cases whose"
    " scores differ, conditional on them), each end a one-sided bound at the line's level in"
    " Holm's procedure (95% before the correction), so its upper end is below 0 exactly when"
    " p_holm < alpha; – = too few pairs for the test to reach that level"
)


@dataclass
class CategoryComparison:
    """One line of the comparison: a category, or ``all`` over every pair."""

    category: str
    pairs: int
    # the paired 2×2: cases (summed shares where a case's score is a share of executions)
    both_pass: float
    base_only: float  # the base scored higher (the cases that make a regression)
    new_only: float
    both_fail: float
    base_pass: float
    new_pass: float
    difference: float  # new − base: negative is worse
    ci: tuple[float, float]  # the test's interval at ``ci_level`` (NaN, NaN: none, "–")
    p: float  # one-sided exact test (McNemar on pass/fail): new worse than base
    p_holm: float
    mde: float | None  # smallest drop detected with power 0.8 here; None: none can be
    regression: bool = False
    ci_level: float = ALPHA  # each end of ``ci`` is a one-sided bound at this level
    discordant: int = 0  # cases whose two scores differ
    p_better: float = 1.0  # the same exact test the other way: new better than base

    def as_dict(self) -> dict[str, Any]:
        found = {name: getattr(self, name) for name in self.__dataclass_fields__}
        found["ci"] = [_finite(v) for v in self.ci]
        for name in ("base_pass", "new_pass", "difference", "p", "p_holm", "mde", "ci_level"):
            found[name] = _finite(found[name])
        for name in ("both_pass", "base_only", "new_only", "both_fail"):
            found[name] = _count(found[name])
        return found


@dataclass
class Comparison:
    """Two campaigns compared: the lines (categories, then ``all``) and what was left out."""

    base_llm: str
    new_llm: str
    lines: list[CategoryComparison]
    only_base: int
    only_new: int
    excluded_flaky: int | None  # None: flaky cases were kept
    alpha: float
    max_drop: float
    pairs_table: pd.DataFrame = field(repr=False)  # one row per pair: keys, base, new scores

    @property
    def pairs(self) -> int:
        return next((line.pairs for line in self.lines if line.category == OVERALL), 0)

    @property
    def failed(self) -> list[CategoryComparison]:
        """The lines that fail the gate: the categories, most significant first, then ``all``."""
        failing = (line for line in self.lines if line.regression)
        return sorted(failing, key=lambda x: (x.category == OVERALL, x.p_holm))

    @property
    def regression(self) -> bool:
        return bool(self.failed)

    def as_dict(self) -> dict[str, Any]:
        """The ``compare --json`` object."""
        return {
            "regression": self.regression,
            "pairs": self.pairs,
            "categories": [line.as_dict() for line in self.lines],
            "only_base": self.only_base,
            "only_new": self.only_new,
            "excluded_flaky": self.excluded_flaky,
            "base_llm": self.base_llm,
            "new_llm": self.new_llm,
            "alpha": self.alpha,
            "max_drop": self.max_drop,
            "failed": [line.category for line in self.failed],
            "interval": INTERVAL,
        }

    def table(self) -> pd.DataFrame:
        """The lines as a table (one row per category, ``all`` last)."""
        rows = [line.as_dict() for line in self.lines]
        frame = pd.DataFrame(rows)
        if frame.empty:
            return frame
        ci = frame.pop("ci")
        at = list(frame.columns).index("difference") + 1
        frame.insert(at, "ci_high", [c[1] for c in ci])
        frame.insert(at, "ci_low", [c[0] for c in ci])
        return frame.set_index("category")

    def discordant(self) -> pd.DataFrame:
        """The pairs whose two scores differ, the base-only ones (the regressions) first."""
        table = self.pairs_table
        found = table[table[BASE] != table[NEW]]
        return found.assign(_o=found[NEW] - found[BASE]).sort_values("_o").drop(columns="_o")


def llms_of(results: pd.DataFrame) -> list[str]:
    """The LLMs of a results frame, in order."""
    return sorted(str(v) for v in results["llm"].unique())


def pick_llm(results: pd.DataFrame, asked: str | None, side: str) -> str:
    """The LLM to compare on one side: the one asked for (which must be there), else the only
    one the file holds."""
    present = llms_of(results)
    if asked is not None:
        if asked not in present:
            raise ExplaincheckError(
                f"{side} holds no results of {asked!r} (it holds: {', '.join(present)})"
            )
        return asked
    if len(present) != 1:
        raise ExplaincheckError(
            f"{side} holds several LLMs ({', '.join(present)}): choose one with --llm"
            " or --base-llm/--new-llm"
        )
    return present[0]


def compare_campaigns(
    base: pd.DataFrame,
    new: pd.DataFrame,
    base_llm: str,
    new_llm: str,
    *,
    alpha: float = ALPHA,
    max_drop: float = 0.0,
    exclude_flaky: bool = False,
    names: tuple[str, str] = (BASE, NEW),
    detail: bool = True,
) -> Comparison:
    """Pair ``base_llm``'s executions in ``base`` with ``new_llm``'s in ``new`` and test every
    category and the whole; ``names`` name the two sides in messages (file names).
    ``detail=False`` skips the mde (None): the gate does not read it, and a simulation of
    thousands of campaigns cannot wait for its power search."""
    base = base[base["llm"] == base_llm]
    new = new[new["llm"] == new_llm]
    _check_models(base, new, names)
    excluded = None
    if exclude_flaky:
        flaky = flaky_keys(base) | flaky_keys(new)
        base, new = _without(base, flaky), _without(new, flaky)
        excluded = len(flaky)
    base_ids, new_ids = _identities(base), _identities(new)
    frame = pd.concat([base.assign(llm=BASE), new.assign(llm=NEW)], ignore_index=True)
    frame = frame[~frame["verdict"].isin(UNSCORED)]
    pairs = paired_outcomes(frame, BASE, NEW).rename(columns={"a": BASE, "b": NEW})
    if pairs.empty and excluded:
        raise ExplaincheckError(
            f"every case {names[0]} and {names[1]} share is flaky on one side ({excluded} left"
            " out): nothing left to compare"
        )
    if pairs.empty:
        raise ExplaincheckError(
            f"{names[0]} and {names[1]} share no case (same environment, category, states and"
            " wording): nothing to compare"
        )
    paired_ids = set(map(tuple, pairs[PAIR_KEYS].to_numpy()))
    lines = gate_lines(pairs, alpha=alpha, max_drop=max_drop, detail=detail)
    return Comparison(
        base_llm=base_llm,
        new_llm=new_llm,
        lines=lines,
        only_base=len(base_ids - paired_ids),
        only_new=len(new_ids - paired_ids),
        excluded_flaky=excluded,
        alpha=alpha,
        max_drop=max_drop,
        pairs_table=pairs,
    )


def gate_lines(
    pairs: pd.DataFrame,
    *,
    alpha: float = ALPHA,
    max_drop: float = 0.0,
    detail: bool = True,
) -> list[CategoryComparison]:
    """The gate over paired scores (``category``, ``base``, ``new`` per pair): one line per
    category and ``all``, Holm-adjusted as one family, each with the interval at its Holm level
    and marked a regression or not."""
    groups = [(c, pairs[pairs["category"] == c]) for c in order_categories(pairs["category"])]
    family = len(groups) + 1 if len(groups) > 1 else 1  # one category: ``all`` is the same test
    found = [(c, PairedDifferences.of(g[BASE], g[NEW]), g) for c, g in groups]
    found.append((OVERALL, PairedDifferences.of(pairs[BASE], pairs[NEW]), pairs))
    lines = [_line(c, d, g, alpha, family, detail) for c, d, g in found]
    tested = lines if family > 1 else lines[:1]
    p_values = [line.p for line in tested]
    levels = holm_levels(p_values, alpha)
    for line, p_holm, level in zip(tested, holm(p_values), levels, strict=True):
        line.p_holm, line.ci_level = float(p_holm), level
    if family == 1:
        lines[-1].p_holm, lines[-1].ci_level = lines[0].p_holm, lines[0].ci_level
    for line, (_, differences, _) in zip(lines, found, strict=True):
        line.ci = _interval(differences, line.ci_level)
        line.regression = _fails(line, alpha, max_drop)
    return lines


def _interval(differences: PairedDifferences, level: float) -> tuple[float, float]:
    """The test's interval at ``level``; none (NaN) when no outcome of these pairs could reach
    it (the test means nothing here)."""
    if smallest_p(differences.pairs) >= level:
        return (math.nan, math.nan)
    return differences.interval(level)


def _fails(line: CategoryComparison, alpha: float, max_drop: float) -> bool:
    if not line.p_holm < alpha:
        return False
    return max_drop == 0 or line.ci[1] < -max_drop


def _check_models(base: pd.DataFrame, new: pd.DataFrame, names: tuple[str, str]) -> None:
    """Refuse two campaigns that ran different models of one environment (model hash)."""
    for environment in sorted(set(base["environment"]) & set(new["environment"])):
        ours = set(base.loc[base["environment"] == environment, "model_hash"].dropna())
        theirs = set(new.loc[new["environment"] == environment, "model_hash"].dropna())
        if ours and theirs and ours != theirs:
            raise ExplaincheckError(
                f"{names[0]} and {names[1]} ran different models of {environment} (model hash"
                f" {_short(ours)} vs {_short(theirs)}): their cases are not the same questions"
            )


def _short(hashes: set[str]) -> str:
    return "/".join(sorted(h[:12] for h in hashes))


def _identities(results: pd.DataFrame) -> set[tuple[str, str, str]]:
    scored = results[~results["verdict"].isin(UNSCORED)]
    return set(
        zip(
            scored["environment"],
            scored["category"],
            (question_identity(k) for k in scored["case_key"]),
            strict=True,
        )
    )


def _without(results: pd.DataFrame, keys: set[tuple[str, str, str]]) -> pd.DataFrame:
    if not keys:
        return results
    identity = zip(
        results["environment"],
        results["category"],
        (question_identity(k) for k in results["case_key"]),
        strict=True,
    )
    return results[[key not in keys for key in identity]]


def _line(
    category: str,
    differences: PairedDifferences,
    group: pd.DataFrame,
    alpha: float,
    family: int,
    detail: bool,
) -> CategoryComparison:
    base, new = group[BASE].to_numpy(float), group[NEW].to_numpy(float)
    n = len(group)
    # the 2×2 as summed shares: each pass rate is its "both" plus its "only", over the pairs
    base_only = float(np.sum(np.maximum(base - new, 0.0)))
    new_only = float(np.sum(np.maximum(new - base, 0.0)))
    p = differences.p_worse()
    background = 2 * min(base_only, new_only) / n
    return CategoryComparison(
        category=category,
        pairs=n,
        both_pass=float(np.sum(np.minimum(base, new))),
        base_only=base_only,
        new_only=new_only,
        both_fail=float(np.sum(1.0 - np.maximum(base, new))),
        base_pass=float(base.mean()),
        new_pass=float(new.mean()),
        difference=float(new.mean() - base.mean()),
        ci=(math.nan, math.nan),
        p=p,
        p_holm=p,
        mde=minimum_detectable_drop(n, background, alpha / family) if detail else None,
        discordant=len(differences.sizes),
        p_better=PairedDifferences.of(new, base).p_worse(),
    )


def holm(p_values: list[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (as statsmodels' ``multipletests(method="holm")``,
    which also runs a full garbage collection per call: too slow for a simulation)."""
    p = np.asarray(p_values, float)
    order = np.argsort(p, kind="stable")
    steps = (len(p) - np.arange(len(p))) * p[order]
    adjusted = np.empty(len(p))
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(steps))
    return adjusted


def gate_power(pairs: int, drop: float, background: float = 0.0, alpha: float = ALPHA) -> float:
    """Power of the one-sided exact McNemar test at ``alpha`` over ``pairs`` pass/fail pairs when
    the new side loses ``drop`` of the cases and ``background`` of them disagree both ways at
    random (half each way): the exact sum over the number of discordant pairs."""
    towards_new = background / 2
    towards_base = background / 2 + drop
    discordant = towards_new + towards_base
    if pairs == 0 or discordant <= 0 or discordant > 1:
        return 0.0
    m = np.arange(pairs + 1)
    critical = _critical(m, alpha)  # base-only count that rejects, per discordant count
    reachable = critical <= m
    share = towards_base / discordant
    chance = stats.binom.pmf(m, pairs, discordant) * stats.binom.sf(critical - 1, m, share)
    return float(np.sum(chance[reachable]))


def _critical(m: np.ndarray, alpha: float) -> np.ndarray:
    """Smallest base-only count k with P(Bin(m, ½) ≥ k) ≤ alpha, per m (m + 1: unreachable)."""
    k = stats.binom.ppf(1 - alpha, m, 0.5).astype(int) + 1
    # ppf works on the cdf; step k down while the count below still rejects (float edges)
    lower = np.maximum(k - 1, 0)
    k = np.where(stats.binom.sf(lower - 1, m, 0.5) <= alpha, lower, k)
    return np.where(m == 0, 1, k)


def minimum_detectable_drop(
    pairs: int, background: float = 0.0, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """The smallest drop ``gate_power`` detects with ``power`` at these pairs (to 0.001); None
    when no drop can be (too few pairs for any count to reach ``alpha``)."""
    top = 1.0 - background
    if pairs == 0 or gate_power(pairs, top, background, alpha) < power:
        return None
    low, high = 0.0, top
    while high - low > 0.0005:
        middle = (low + high) / 2
        if gate_power(pairs, middle, background, alpha) >= power:
            high = middle
        else:
            low = middle
    return math.ceil(high * 1000) / 1000  # rounded up: the power holds at the value shown


def _count(value: float) -> int | float:
    """A 2×2 entry: a whole count as an int, a summed share to 6 decimals."""
    return round(value) if abs(value - round(value)) < 1e-9 else round(float(value), 6)


def _finite(value: Any) -> Any:
    """JSON has no NaN: a missing number is null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value

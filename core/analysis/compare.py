"""Did the new campaign get worse than the base? Two results files paired case by case, with a gate.

Why paired: both campaigns asked the same cases (same environment, model, category, states and
wording), whose verdicts are exact; a case the base passed and the new side fails is evidence of
a regression, a case both pass or both fail says nothing. The pairing is the paired tests' own
(``paired.paired_outcomes``: one pair per distinct case, repeats and both selections aggregated
into a score first); cases present on one side only are counted and left out.

Per category and over all pairs: the paired counts, both pass rates, the difference new − base
with its paired bootstrap interval (``paired.bootstrap_difference``), and the one-sided exact
McNemar test of "new is worse" (the binomial test of the cases the base scored higher among the
discordant ones). Holm's correction runs over the categories and the overall line together
(one family, so the gate's chance of a false alarm is at most α). The gate (docs/method.md,
"Comparing two campaigns"): a category — or the overall line — is a **regression** when its
Holm p is below α and, with ``max_drop`` > 0, the whole interval of the drop lies beyond
``max_drop``. Each line carries the smallest drop the test detects with power
0.8 at its pair count (``mde``), so a suite too small to see a drop is never read as "no
regression".
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
    bootstrap_difference,
    paired_outcomes,
    question_identity,
)
from explaincheck.core.analysis.stability import UNSCORED, flaky_keys
from explaincheck.core.errors import ExplaincheckError

ALPHA = 0.05
POWER = 0.8
BASE, NEW = "base", "new"


@dataclass
class CategoryComparison:
    """One line of the comparison: a category, or ``all`` over every pair."""

    category: str
    pairs: int
    both_pass: int
    base_only: int  # the base scored higher (the cases that make a regression)
    new_only: int
    both_fail: int
    base_pass: float
    new_pass: float
    difference: float  # new − base: negative is worse
    ci: tuple[float, float]
    p: float  # one-sided exact McNemar: new worse than base
    p_holm: float
    mde: float | None  # smallest drop detected with power 0.8 here; None: none can be
    regression: bool = False

    def as_dict(self) -> dict[str, Any]:
        found = {name: getattr(self, name) for name in self.__dataclass_fields__}
        found["ci"] = [_finite(v) for v in self.ci]
        for name in ("base_pass", "new_pass", "difference", "p", "p_holm", "mde"):
            found[name] = _finite(found[name])
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
    seed: int = 0,
    names: tuple[str, str] = (BASE, NEW),
    detail: bool = True,
) -> Comparison:
    """Pair ``base_llm``'s executions in ``base`` with ``new_llm``'s in ``new`` and test every
    category and the whole; ``names`` name the two sides in messages (file names).
    ``detail=False`` skips the bootstrap intervals (NaN) and the mde (None): the gate at
    ``max_drop`` 0 reads neither, and a simulation of thousands of campaigns cannot wait."""
    if not detail and max_drop > 0:
        raise ValueError("the gate with max_drop > 0 reads the interval")
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
    lines = gate_lines(pairs, alpha=alpha, max_drop=max_drop, seed=seed, detail=detail)
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
    seed: int = 0,
    detail: bool = True,
) -> list[CategoryComparison]:
    """The gate over paired scores (``category``, ``base``, ``new`` per pair): one line per
    category and ``all``, Holm-adjusted as one family, each marked a regression or not."""
    groups = [(c, pairs[pairs["category"] == c]) for c in order_categories(pairs["category"])]
    family = len(groups) + 1 if len(groups) > 1 else 1  # one category: ``all`` is the same test
    lines = [_line(c, g, alpha, seed, family, detail) for c, g in groups]
    lines.append(_line(OVERALL, pairs, alpha, seed, family, detail))
    tested = lines if family > 1 else lines[:1]
    for line, p_holm in zip(tested, holm([line.p for line in tested]), strict=True):
        line.p_holm = float(p_holm)
    if family == 1:
        lines[-1].p_holm = lines[0].p_holm
    for line in lines:
        line.regression = _fails(line, alpha, max_drop)
    return lines


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
    category: str, group: pd.DataFrame, alpha: float, seed: int, family: int, detail: bool
) -> CategoryComparison:
    base, new = group[BASE].to_numpy(float), group[NEW].to_numpy(float)
    n = len(group)
    base_only, new_only = int(np.sum(base > new)), int(np.sum(base < new))
    tied = base == new
    difference = float(new.mean() - base.mean())
    low, high = bootstrap_difference(new, base, alpha, seed) if detail else (math.nan,) * 2
    if detail and math.isnan(
        low
    ):  # every pair differs by the same amount: the interval is that amount
        low = high = difference
    p = one_sided_mcnemar(base_only, new_only)
    background = 2 * min(base_only, new_only) / n
    return CategoryComparison(
        category=category,
        pairs=n,
        both_pass=int(np.sum(tied & (base >= 0.5))),
        base_only=base_only,
        new_only=new_only,
        both_fail=int(np.sum(tied & (base < 0.5))),
        base_pass=float(base.mean()),
        new_pass=float(new.mean()),
        difference=difference,
        ci=(low, high),
        p=p,
        p_holm=p,
        mde=minimum_detectable_drop(n, background, alpha / family) if detail else None,
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


def one_sided_mcnemar(base_only: int, new_only: int) -> float:
    """Exact one-sided McNemar p of "the new side is worse": the binomial test of the base-only
    cases among the discordant ones against ½ (1 without a discordant case)."""
    discordant = base_only + new_only
    if discordant == 0:
        return 1.0
    return float(stats.binomtest(base_only, discordant, 0.5, alternative="greater").pvalue)


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


def _finite(value: Any) -> Any:
    """JSON has no NaN: a missing number is null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value

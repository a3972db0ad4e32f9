"""Before and after a repair, judged by the gate: better, worse or no change, per category.

Why beside ``compare``: the regression gate asks one question ("did it get worse?"); a repair
(few-shot examples, a fine-tuned model) asks two, on cases it never saw: did it get better, and
did it get worse anywhere. Both are the same paired test on the same pairs
(``compare.compare_campaigns``, cut to one part of a split by ``split_cases``), one-sided each
way, with Holm's correction over the categories and the overall line as one family per
direction (as the gate's). A line is

- **better** when the one-sided exact test of "the new side passes more" (the gate's test the
  other way: McNemar on pass/fail scores) is significant after Holm (p_better_holm < α),
- **worse** when the gate's test is (the gate's own regression),
- **no change** otherwise: no difference these pairs can show, which is not proof of none.

Beside it: the base's **flaky share** (the share of its cases whose repeats disagree,
``stability``; unknown when it asked each case once) and whether the gain is larger than it
(a gain no larger than the flaky share could be the base's sampling). A repair report holds the
held-out part (the claim) and the training part (where a gain much larger than on held-out
cases is over-fitting to the examples).
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Any

import pandas as pd

from explaincheck.core.analysis.compare import (
    ALPHA,
    CategoryComparison,
    Comparison,
    holm,
)
from explaincheck.core.analysis.paired import OVERALL
from explaincheck.core.analysis.stability import flaky_keys, independent_runs

BETTER, WORSE, NO_CHANGE = "better", "worse", "no change"


@dataclass(frozen=True)
class Judgement:
    """One line (a category, or ``all``) of one part, judged both ways."""

    category: str
    pairs: int
    base_pass: float
    new_pass: float
    difference: float
    ci: tuple[float, float]
    p_better: float
    p_better_holm: float
    p_worse_holm: float
    flaky_share: float | None  # of the base's cases on this line; None: the base asked once
    beyond_flaky: bool | None  # the gain is larger than the flaky share
    verdict: str

    def as_dict(self) -> dict[str, Any]:
        found = {name: getattr(self, name) for name in self.__dataclass_fields__}
        found["ci"] = [_finite(v) for v in self.ci]
        return {k: _finite(v) for k, v in found.items()}


@dataclass(frozen=True)
class PartJudgement:
    """One part of a split compared: the gate's comparison and each line judged."""

    part: str
    comparison: Comparison
    lines: tuple[Judgement, ...]

    @property
    def overall(self) -> Judgement:
        return self.lines[-1]

    def as_dict(self) -> dict[str, Any]:
        return {
            "part": self.part,
            "verdict": self.overall.verdict,
            "pairs": self.comparison.pairs,
            "only_base": self.comparison.only_base,
            "only_new": self.comparison.only_new,
            "categories": [line.as_dict() for line in self.lines],
        }


def judge(part: str, comparison: Comparison, base: pd.DataFrame) -> PartJudgement:
    """Each line of ``comparison`` judged better / worse / no change; ``base`` is the base
    side's executions of this part (its flaky share)."""
    lines = comparison.lines
    family = len(lines) if len(lines) > 2 else 1  # one category: ``all`` is the same test
    better = [line.p_better for line in lines]  # the gate's exact test, the other way
    tested = better if family > 1 else better[:1]
    adjusted = list(holm(tested)) if tested else []
    if family == 1:
        adjusted = adjusted * len(lines)
    base = base[base["llm"] == comparison.base_llm]
    flaky = _flaky_shares(base, comparison)
    judged = []
    for line, p, p_holm in zip(lines, better, adjusted, strict=True):
        share = flaky.get(line.category)
        judged.append(
            Judgement(
                category=line.category,
                pairs=line.pairs,
                base_pass=line.base_pass,
                new_pass=line.new_pass,
                difference=line.difference,
                ci=line.ci,
                p_better=p,
                p_better_holm=float(p_holm),
                p_worse_holm=line.p_holm,
                flaky_share=share,
                beyond_flaky=None if share is None else line.difference > share,
                verdict=_verdict(line, float(p_holm), comparison.alpha),
            )
        )
    return PartJudgement(part, comparison, tuple(judged))


def _verdict(line: CategoryComparison, p_better_holm: float, alpha: float) -> str:
    if line.regression:
        return WORSE
    if p_better_holm < alpha:
        return BETTER
    return NO_CHANGE


def _flaky_shares(base: pd.DataFrame, comparison: Comparison) -> dict[str, float | None]:
    """Per line: the share of the paired cases the base answered flakily (None when the base
    ran without ``--repeat``: no repeats, no flakiness to measure)."""
    pairs = comparison.pairs_table
    asked = independent_runs(base)  # a merge's further versions are no repeats
    if asked.empty or int(asked["repeat"].max()) < 1:  # no --repeat: every case asked once (two
        return {}  # campaigns' rows of one question share a cached reply: not a repeat)
    flaky = flaky_keys(base)
    keys = list(zip(pairs["environment"], pairs["category"], pairs["case"], strict=True))
    found: dict[str, float | None] = {}
    for line in comparison.lines:
        chosen = [k for k in keys if line.category in (OVERALL, k[1])]
        found[line.category] = sum(k in flaky for k in chosen) / len(chosen) if chosen else None
    return found


NOTE_WIDTH = 100  # the legend in lines as wide as compare's own (``cli.compare_sides.WIDTH``)


def judgement_text(judged: PartJudgement, alpha: float = ALPHA) -> list[str]:
    """The part's verdict line and its table, as ``compare --cases`` prints them."""
    comparison = judged.comparison
    name = judged.part.replace("_", "-")
    head = (
        f"{name} cases: {judged.overall.verdict.upper()} overall"
        f" ({comparison.base_llm} {judged.overall.base_pass:.2f} -> {comparison.new_llm}"
        f" {judged.overall.new_pass:.2f} on {comparison.pairs} paired cases)"
    )
    width = max(len("category"), *(len(line.category) for line in judged.lines))
    rows = [
        f"{'category':<{width}}  pairs  base   new   diff  p_better(Holm)  p_worse(Holm)"
        "  flaky  verdict"
    ]
    for line in judged.lines:
        flaky = "-" if line.flaky_share is None else f"{line.flaky_share:.2f}"
        beyond = "" if line.beyond_flaky is None else (" >" if line.beyond_flaky else " <=")
        rows.append(
            f"{line.category:<{width}}  {line.pairs:>5}  {line.base_pass:.2f}  {line.new_pass:.2f}"
            f"  {line.difference:+.2f}  {line.p_better_holm:>14.3g}  {line.p_worse_holm:>13.3g}"
            f"  {flaky:>5}{beyond:<3}  {line.verdict}"
        )
    note = (
        f"better/worse: one-sided exact McNemar each way (the sign-flip test with shares of"
        " repeats), Holm over the categories and the"
        f" overall line, alpha {alpha:g}; flaky: the base's share of cases whose repeats"
        " disagree (- : asked once), '>' when the gain is larger"
    )
    return [head, *rows, *textwrap.wrap(note, NOTE_WIDTH, break_on_hyphens=False)]


def _finite(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value

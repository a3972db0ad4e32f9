"""RQ1's negative controls: the corrected test must not find "prioritised is harder" for
answerers whose correctness does not depend on δ.

On the seven built-in environments (both selections, every applicable category) the uniform
``random`` answerer, ``noisy:0.5`` and ``hedge`` (½ for a probability, else a guess) answer
directly (no runner, no database, ``analysis.controls``), once per seed. Printed per seed and
control: the number of comparable cells, the one-sided Wilcoxon p and mean difference
prioritised − random of the chance-corrected test (RQ1's headline: same-case cells left out,
over (environment, category) clusters) and of the paper's uncorrected test. Exit status 1 when
the corrected test is significant (p < 0.05) for a control in more than one seed of five
(scaled: in more than a fifth of the seeds).

``--hedge``: hedge's satisfy pass rate under each selection on transporter, stock_market, dam
and job_shop at budget 20, pooled over the seeds, under the paper's δ and the default band δ
(before and after); exit status 1 when the default lets a prioritised rate exceed the random
one by more than 0.05. ``--size``: the headline test's size with three simulated LLMs sharing
case difficulty (``analysis.rq1_power``, 1,000 simulations on the built-ins' stored pools of
seed 0), beside the old test over cells; exit status 1 above 5.5 %.

    python benchmarks/rq1_controls.py [--budget 10] [--seeds 0-4] [--delta band|paper]
        [--markdown] [--hedge] [--size]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence

import pandas as pd

from explaincheck.core.analysis.controls import (
    CONTROLS,
    HEDGE,
    control_results,
    control_table,
    hedge_satisfy_rates,
)
from explaincheck.core.environments.registry import BUILTIN_IDS
from explaincheck.core.taxonomy.case_rules import BAND, DELTA_CHOICES, PAPER, SelectionRules

ALPHA = 0.05
HEDGE_ENVIRONMENTS = ("transporter", "stock_market", "dam", "job_shop")
HEDGE_BUDGET = 20
HEDGE_SLACK = 0.05  # prioritised may exceed random by at most this much under the default δ
SIZE_LIMIT = 0.055
SIZE_SIMULATIONS = 1000
SIZE_LLMS = 3


def seeds_of(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=10)
    parser.add_argument("--seeds", default="0-4", help="a seed or a range LO-HI (0-4)")
    parser.add_argument("--env", action="append", default=[], help="default: the seven built-ins")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--delta", default=BAND, choices=DELTA_CHOICES, help="satisfy's δ")
    parser.add_argument("--hedge", action="store_true", help="hedge's satisfy rates only")
    parser.add_argument("--size", action="store_true", help="the simulated size only")
    args = parser.parse_args(argv)
    seeds = seeds_of(args.seeds)
    if args.hedge:
        return hedge_rates(seeds, args.markdown)
    if args.size:
        return simulated_size(tuple(args.env) or BUILTIN_IDS, args.budget)
    environments = tuple(args.env) or BUILTIN_IDS
    started = time.perf_counter()
    rules = SelectionRules(delta=args.delta)
    table = control_table(environments, seeds, budget=args.budget, rules=rules)
    header = ["seed", "control", "cells", "corrected p", "corrected Δ", "paper's p", "paper's Δ"]
    rows = [
        [
            str(r.seed),
            r.control,
            str(r.cells),
            f"{r.corrected_p:.3g}",
            f"{r.corrected_difference:+.3f}",
            f"{r.paper_p:.3g}",
            f"{r.paper_difference:+.3f}",
        ]
        for r in table.itertuples(index=False)
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    if args.markdown:
        print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in [header, *rows]:
        if args.markdown:
            print("| " + " | ".join(row) + " |")
        else:
            print("  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)))
    print(
        f"\n{len(environments)} environment(s), budget {args.budget}, both selections, seeds "
        f"{args.seeds}, satisfy δ {args.delta}; Δ = mean difference prioritised − random "
        "over the cells "
        f"({time.perf_counter() - started:.0f} s)"
    )
    allowed = math.floor(len(seeds) / 5)
    failed = False
    for control in CONTROLS:
        mine = table[table["control"] == control]
        corrected = int((mine["corrected_p"] < ALPHA).sum())
        paper = int((mine["paper_p"] < ALPHA).sum())
        print(
            f"{control}: corrected test significant in {corrected} of {len(mine)} seeds "
            f"(allowed {allowed}); the paper's test in {paper} of {len(mine)}"
        )
        failed = failed or corrected > allowed
    if failed:
        print("a negative control came out significant under the corrected test", file=sys.stderr)
    return 1 if failed else 0


def print_table(header: list[str], rows: list[list[str]], markdown: bool) -> None:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    if markdown:
        print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in [header, *rows]:
        if markdown:
            print("| " + " | ".join(row) + " |")
        else:
            print("  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)))


def hedge_tables(seeds: Sequence[int]) -> dict[str, pd.DataFrame]:
    """Per δ (paper, band): hedge's satisfy pass rates per environment, seeds pooled."""
    found = {}
    for delta in (PAPER, BAND):
        frames = [
            control_results(
                HEDGE_ENVIRONMENTS,
                [HEDGE],
                budget=HEDGE_BUDGET,
                seed=seed,
                categories=["satisfy"],
                rules=SelectionRules(delta=delta),
            )
            for seed in seeds
        ]
        found[delta] = hedge_satisfy_rates(pd.concat(frames, ignore_index=True))
    return found


def hedge_rates(seeds: list[int], markdown: bool) -> int:
    """Hedge's satisfy pass rates, prioritised vs random, under both δ (pooled over seeds)."""
    found = hedge_tables(seeds)
    header = ["environment", "δ", "prioritised", "random", "prioritised − random"]
    rows = [
        [
            str(r.environment),
            delta,
            f"{r.prioritized:.2f}",
            f"{r.random:.2f}",
            f"{r.difference:+.2f}",
        ]
        for delta, table in found.items()
        for r in table.itertuples(index=False)
    ]
    print_table(header, rows, markdown)
    print(
        f"\nhedge's satisfy pass rate, budget {HEDGE_BUDGET}, seeds {seeds[0]}-{seeds[-1]} "
        f"pooled; paper: 1 − 2|V − ½| (before), band: the default (after)"
    )
    worst = float(found[BAND]["difference"].max())
    if worst > HEDGE_SLACK:
        print(f"the default δ rewards hedge: +{worst:.2f} > {HEDGE_SLACK}", file=sys.stderr)
        return 1
    return 0


def simulated_size(environments: tuple[str, ...], budget: int) -> int:
    """The headline test's size with three LLMs sharing case difficulty, and the old one's."""
    from explaincheck.core.analysis.rq1_power import case_pool, simulate

    results = control_results(environments, ["random"], budget=budget, seed=0)
    pool = case_pool(results, "random")
    size = simulate(pool, llms=SIZE_LLMS, beta=0.0, simulations=SIZE_SIMULATIONS)
    power = simulate(pool, llms=SIZE_LLMS, beta=0.4, simulations=200, seed=1)
    print(
        f"{len(environments)} environment(s), budget {budget}, seed 0: {pool.clusters} "
        f"clusters with contrast, {SIZE_LLMS} LLMs sharing case difficulty, "
        f"{SIZE_SIMULATIONS:,} simulations at α = {ALPHA}"
    )
    print(f"size of the headline test (cluster means): {size['clustered']:.3f}")
    print(f"size of the test over cells (before):       {size['cells']:.3f}")
    print(
        f"power at β = 0.4 (200 simulations): clustered {power['clustered']:.2f}, "
        f"cells {power['cells']:.2f}"
    )
    return 1 if size["clustered"] > SIZE_LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())

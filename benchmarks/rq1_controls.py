"""RQ1's negative controls: the corrected test must not find "prioritised is harder" for
answerers whose correctness does not depend on δ.

On the seven built-in environments (both selections, every applicable category) the uniform
``random`` answerer and ``noisy:0.5`` answer directly (no runner, no database,
``analysis.controls``), once per seed. Printed per seed and control: the number of comparable
cells, the one-sided Wilcoxon p and mean difference prioritised − random of the chance-corrected
test (RQ1's headline) and of the paper's uncorrected test. Exit status 1 when the corrected test
is significant (p < 0.05) for a control in more than one seed of five (scaled: in more than a
fifth of the seeds).

    python benchmarks/rq1_controls.py [--budget 10] [--seeds 0-4] [--markdown]
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from explaincheck.core.analysis.controls import CONTROLS, control_table
from explaincheck.core.environments.registry import BUILTIN_IDS

ALPHA = 0.05


def seeds_of(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=10)
    parser.add_argument("--seeds", default="0-4", help="a seed or a range LO-HI (0-4)")
    parser.add_argument("--env", action="append", default=[], help="default: the seven built-ins")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    seeds = seeds_of(args.seeds)
    environments = tuple(args.env) or BUILTIN_IDS
    started = time.perf_counter()
    table = control_table(environments, seeds, budget=args.budget)
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
        f"{args.seeds}; Δ = mean difference prioritised − random over the cells "
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


if __name__ == "__main__":
    sys.exit(main())

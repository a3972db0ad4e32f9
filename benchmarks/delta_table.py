"""Mean δ, and the random answerer's pass chance, of prioritised vs random selection per category.

Checks the claim behind RQ1 on the selection itself, on the seven built-in environments:
1. prioritised selection surfaces cases with mean δ at least that of a random draw from the same
   candidates (cells "prioritised/random (cases)", "–" with the not-applicable reason below);
2. the chance that a uniform random answer passes (``analysis.chance.case_chance``) is, per cell,
   prioritised/random. Prioritised cases should not be easier to guess; the ranking column must
   never be (a tie-heavy δ once made them so).
Exit status 1 if some cell has prioritised mean δ < random, or a ranking cell has a prioritised
pass chance above random.

    python benchmarks/delta_table.py [--budget 20] [--seed 0] [--markdown]
"""

from __future__ import annotations

import argparse
import sys

from explaincheck.core.analysis.chance import case_chance
from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def cell(oracle, category_id: str, budget: int, seed: int) -> tuple[str, bool, str | None]:
    """(text, prioritised >= random, not-applicable reason)."""
    reason = CATEGORIES[category_id].not_applicable(oracle)
    if reason is not None:
        return "–", True, reason
    top = select_cases(oracle, category_id, budget, "prioritized", seed)
    drawn = select_cases(oracle, category_id, budget, "random", seed)
    prioritized, random = mean([c.delta for c in top]), mean([c.delta for c in drawn])
    return f"{prioritized:.2f}/{random:.2f} ({len(top)})", prioritized >= random - 1e-12, None


def chance_cell(environment, oracle, category_id: str, budget: int, seed: int) -> tuple[str, bool]:
    """("prioritised/random" mean pass chance of a uniform random answer, ranking holds)."""
    category = CATEGORIES[category_id]
    if category.not_applicable(oracle) is not None:
        return "–", True
    means = []
    for selection in ("prioritized", "random"):
        cases = select_cases(oracle, category_id, budget, selection, seed)
        chances = [
            case_chance(render_prompt(c, oracle, environment).schema, category.expected(c, oracle))
            for c in cases
        ]
        means.append(mean(chances))
    holds = category_id != "ranking" or means[0] <= means[1] + 1e-12
    return f"{means[0]:.2f}/{means[1]:.2f}", holds


def print_table(header: list[str], rows: list[list[str]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = parser.parse_args(argv)

    header = ["environment", "states", *CATEGORIES]
    rows, chance_rows, notes, ok, chance_ok = [], [], {}, True, True
    for env_id in BUILTIN_IDS:
        environment = load_builtin(env_id)
        oracle = compute_oracle(environment.request())
        row = [env_id, str(len(oracle.states))]
        chance_row = list(row)
        for category_id in CATEGORIES:
            text, good, reason = cell(oracle, category_id, args.budget, args.seed)
            row.append(text if good else text + " !")
            ok = ok and good
            if reason:
                notes.setdefault((category_id, reason), []).append(env_id)
            text, holds = chance_cell(environment, oracle, category_id, args.budget, args.seed)
            chance_row.append(text if holds else text + " !")
            chance_ok = chance_ok and holds
        rows.append(row)
        chance_rows.append(chance_row)

    print_table(header, rows, args.markdown)
    print(f"\ncells: mean δ prioritized/random (cases), budget {args.budget}, seed {args.seed}")
    for (category_id, reason), env_ids in notes.items():
        print(f"– {category_id}: {reason} ({', '.join(env_ids)})")
    print()
    print_table(header, chance_rows, args.markdown)
    print(
        "\ncells: the random answerer's expected pass chance, prioritized/random "
        "(lower = harder to guess)"
    )
    if not ok:
        print("prioritized mean δ below random in the cells marked !", file=sys.stderr)
    if not chance_ok:
        print("prioritized ranking cases easier to guess than random ones (!)", file=sys.stderr)
    return 0 if ok and chance_ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Mean δ of prioritised vs random selection per category on the seven built-in environments.

Checks the claim behind RQ1 on the selection itself: prioritised selection surfaces cases with
mean δ at least that of a random draw from the same candidates. Prints one row per environment,
cells "prioritised/random (cases)" or "–" with the not-applicable reason below the table.
Exit status 1 if some cell has prioritised < random.

    python benchmarks/delta_table.py [--budget 20] [--seed 0] [--markdown]
"""

from __future__ import annotations

import argparse
import sys

from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import compute_oracle
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = parser.parse_args(argv)

    header = ["environment", "states", *CATEGORIES]
    rows, notes, ok = [], {}, True
    for env_id in BUILTIN_IDS:
        environment = load_builtin(env_id)
        oracle = compute_oracle(environment.request())
        row = [env_id, str(len(oracle.states))]
        for category_id in CATEGORIES:
            text, good, reason = cell(oracle, category_id, args.budget, args.seed)
            row.append(text if good else text + " !")
            ok = ok and good
            if reason:
                notes.setdefault((category_id, reason), []).append(env_id)
        rows.append(row)

    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)))
    print(f"\ncells: mean δ prioritized/random (cases), budget {args.budget}, seed {args.seed}")
    for (category_id, reason), env_ids in notes.items():
        print(f"– {category_id}: {reason} ({', '.join(env_ids)})")
    if not ok:
        print("prioritized mean δ below random in the cells marked !", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

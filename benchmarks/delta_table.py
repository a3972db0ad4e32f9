"""Mean δ, and the random answerer's pass chance, of prioritised vs random selection per category.

Checks the claim behind RQ1 on the selection itself, on the seven built-in environments:
1. prioritised selection surfaces cases with mean δ at least that of a random draw from the same
   candidates (cells "prioritised/random (cases)", "–" with the not-applicable reason below);
2. the chance that a uniform random answer passes (``analysis.chance.case_chance``) is, per cell,
   prioritised/random. Prioritised cases should not be easier to guess; the ranking column must
   never be (a tie-heavy δ once made them so).
3. (``--quality``) per environment × category and selection, the share of selected cases that
   every answer passes (chance 1), of reading cases (a failure state the words give away) and of
   cases whose deciding difference is below 0.01 (docs/method.md §4). The shares are computed
   here from the oracle and the prompts alone, so the same script measures an older checkout
   (``--json`` writes them; ``--before FILE`` prints before → after).
Exit status 1 if some cell has prioritised mean δ < random, or a best, worst or ranking cell has
a prioritised pass chance above random.

    python benchmarks/delta_table.py [--budget 20] [--seed 0] [--markdown]
    python benchmarks/delta_table.py --quality [--json OUT] [--before BEFORE.json]
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
    holds = category_id not in GUESS_CHECKED or means[0] <= means[1] + 1e-12
    return f"{means[0]:.2f}/{means[1]:.2f}", holds


GUESS_CHECKED = ("best_action", "worst_action", "ranking")  # prioritised never easier to guess
SMALL_GAP = 0.01
PAIRS = {"more_promising": "value", "safer": "danger"}


def _absorbing(state) -> bool:
    return all(set(targets) <= {state.id} for targets in state.successors.values())


def _shows_failure(state) -> bool:
    """Unsafe-labelled, or an absorbing dead end: the words give the failure away."""
    return state.is_unsafe or (state.dead_end and _absorbing(state))


def reading(category_id: str, states) -> bool:
    """The definition of a reading case (docs/method.md §4), from the oracle's facts only."""
    if category_id == "which_bottleneck":
        return any(s.dead_end and _absorbing(s) and not s.bottleneck for s in states)
    if category_id in ("satisfy", *PAIRS, "subset_dead_end"):
        return any(_shows_failure(s) for s in states)
    return False


def deciding_gap(category_id: str, states, offered) -> float | None:
    """The value difference that decides the case, over the actions the prompt offers."""
    if category_id in PAIRS:
        first, second = (getattr(s, PAIRS[category_id]) for s in states)
        return abs(first - second)
    if category_id not in GUESS_CHECKED:
        return None
    state = states[0]
    groups = [[a for a in g if a in offered] for g in state.action_order]
    values = [state.q[g[0]] for g in groups if g]
    gaps = [values[i] - values[i + 1] for i in range(len(values) - 1)]
    if not gaps:
        return 0.0  # every offered action ties: nothing decides the case
    return {"best_action": gaps[0], "worst_action": gaps[-1]}.get(category_id, min(gaps))


def quality_cells(environment, oracle, category_id: str, budget: int, seed: int) -> dict | None:
    """Per selection: cases, and how many have chance 1, are reading cases, or a small gap."""
    category = CATEGORIES[category_id]
    if category.not_applicable(oracle) is not None:
        return None
    found = {}
    for selection in ("prioritized", "random"):
        counts = {"cases": 0, "chance1": 0, "reading": 0, "small_gap": 0}
        for case in select_cases(oracle, category_id, budget, selection, seed):
            prompt = render_prompt(case, oracle, environment)
            states = [oracle.state(i) for i in case.states]
            enum = next(iter(prompt.schema["properties"].values()))
            offered = set(enum.get("enum") or enum.get("items", {}).get("enum") or ())
            gap = deciding_gap(category_id, states, offered)
            counts["cases"] += 1
            counts["chance1"] += case_chance(prompt.schema, category.expected(case, oracle)) >= 1
            counts["reading"] += reading(category_id, states)
            counts["small_gap"] += gap is not None and gap < SMALL_GAP
        found[selection] = counts
    return found


def quality_data(budget: int, seed: int) -> dict:
    data = {}
    for env_id in BUILTIN_IDS:
        environment = load_builtin(env_id)
        oracle = compute_oracle(environment.request())
        data[env_id] = {
            cid: quality_cells(environment, oracle, cid, budget, seed)
            for cid in CATEGORIES
            if cid != "factors"
        }
    return data


def _shares(cell: dict | None, key: str) -> str:
    if cell is None:
        return "–"
    parts = []
    for selection in ("prioritized", "random"):
        counts = cell[selection]
        parts.append(f"{counts[key] / counts['cases']:.2f}" if counts["cases"] else "0")
    return "/".join(parts)


def print_quality(after: dict, before: dict | None, markdown: bool) -> None:
    """One table per measure: rows environment, columns category, cells prioritised/random
    (before → after where a before file is given)."""
    categories = [c for c in CATEGORIES if c != "factors"]
    for key, title in (
        ("chance1", "share of cases that every answer passes (chance 1)"),
        ("reading", "share of reading cases"),
        ("small_gap", f"share of cases whose deciding difference is below {SMALL_GAP:g}"),
    ):
        rows = []
        for env_id, cells in after.items():
            line = [env_id]
            for cid in categories:
                now = _shares(cells.get(cid), key)
                if before is not None:
                    was = _shares(before.get(env_id, {}).get(cid), key)
                    now = now if was == now else f"{was} → {now}"
                line.append(now)
            rows.append(line)
        print()
        print_table(["environment", *categories], rows, markdown)
        print(f"\ncells: {title}, prioritized/random" + (" (before → after)" if before else ""))


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
    parser.add_argument("--quality", action="store_true", help="only the case-quality tables")
    parser.add_argument("--json", default=None, help="write the case-quality counts here")
    parser.add_argument("--before", default=None, help="case-quality counts of an older checkout")
    args = parser.parse_args(argv)
    if args.quality:
        import json

        data = quality_data(args.budget, args.seed)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as stream:
                json.dump(data, stream, indent=1)
        before = None
        if args.before:
            with open(args.before, encoding="utf-8") as stream:
                before = json.load(stream)
        print_quality(data, before, args.markdown)
        return 0

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
        print(
            "prioritized best/worst/ranking cases easier to guess than random ones (!)",
            file=sys.stderr,
        )
    return 0 if ok and chance_ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""``explaincheck split``: partition a results file's cases into train and held-out, so that
training data and few-shot examples come from one part and the judgement from the other.

Why a command (and a file) of its own: ``train-set``, ``run --shots-from`` and ``compare
--cases`` must agree on one partition, made once, deterministically, under a rule that keeps
held-out answers out of the training data (docs/method.md, "Training sets and few-shot repair").
"""

from __future__ import annotations

import argparse
import json
import sys

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.terminal_text import safe_terminal

NAME = "split"
HELP = """Split the cases of a results file into a training part and a held-out part.

--by state (default): per model, a held-out region of states grows from a seeded start; the
questions inside it are held out, the questions whose neighbourhood (their states and the
states one action away; absorbing states left out) meets no held-out question's neighbourhood
are the training part, and the others are left out, counted. So no training question shares a
state or a successor state with a held-out one: the rule is checked before the file is written.
--by environment or --by model hold out whole environments or models instead.

split.json lists "train", "held_out" and "left_out" as case keys as `results --json` gives
them (with environment, model hash, category, states, delta and neighbourhood), the rule, the
seed and the models. --bench DIR also writes the held-out part as a frozen question set (the
bench format, with its sha256), so later runs ask exactly it (`bench run DIR`).

examples:
  explaincheck split --db results.sqlite --out split.json
  explaincheck split --db results.sqlite --held-out 0.4 --seed 3 --out split.json --json
  explaincheck split --db all.sqlite --by environment --out split.json
  explaincheck split --db results.sqlite --out split.json --bench held-out-set
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from explaincheck.core.campaign.split_file import BY_CHOICES

    parser.add_argument("--db", default="results.sqlite", help="results database")
    parser.add_argument(
        "--by", default="state", choices=BY_CHOICES, help="what is held out whole (state)"
    )
    parser.add_argument(
        "--held-out",
        type=_share,
        default=0.3,
        metavar="SHARE",
        help="share of the questions to hold out, from 0 to below 1 (0.3)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the split (0)")
    parser.add_argument("--out", required=True, metavar="split.json", help="the split file")
    parser.add_argument(
        "--bench",
        default=None,
        metavar="DIR",
        help="also write the held-out part as a frozen question set in DIR",
    )
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share, got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"--held-out must lie in [0, 1), got {text}")
    return value


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.analysis.splitting import make_split
    from explaincheck.core.campaign.split_file import split_text, write_split

    split = make_split(args.db, by=args.by, held_out=args.held_out, seed=args.seed)
    digest = write_split(split, args.out)
    counts = json.loads(split_text(split))["counts"]
    if args.bench:
        from explaincheck.core.bench.held_out import write_held_out_set

        bench = write_held_out_set(split, digest, args.db, args.bench)
        print(
            f"held-out set: {bench.manifest['questions']} questions in {args.bench};"
            f" sha256 {bench.manifest['sha256']}",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps({"split": args.out, "sha256": digest, "counts": counts}, indent=2))
    else:
        print(safe_terminal(summary_text(counts, args.out, digest, args.by)))
    return 0


def summary_text(counts: dict[str, dict[str, int]], out: str, digest: str, by: str) -> str:
    """Questions per category and part, then the file and its sha256."""
    categories = sorted({c for part in counts.values() for c in part})
    if not categories:
        raise ExplaincheckError("nothing to split")
    width = max(len("category"), *(len(c) for c in categories))
    lines = [f"{'category':<{width}}  {'train':>6}  {'held-out':>8}  {'left out':>8}"]
    for category in [*categories, "all"]:
        cells = [
            sum(counts[p].values()) if category == "all" else counts[p].get(category, 0)
            for p in ("train", "held_out", "left_out")
        ]
        lines.append(f"{category:<{width}}  {cells[0]:>6}  {cells[1]:>8}  {cells[2]:>8}")
    lines.append(
        f"split by {by} (distinct questions; left out: the buffer the rule needs) -> {out},"
        f" sha256 {digest}"
    )
    return "\n".join(lines)

"""``explaincheck train-set``: training data with exact labels from the train part of a split.

Why a command: a campaign's failures are labelled examples (the oracle says what the answer
should have been); written in the formats fine-tuning tools read, with a card saying which
split and which models they come from (core/analysis/train_set.py, dataset_card.py).
"""

from __future__ import annotations

import argparse
import json

from explaincheck.core.terminal_text import safe_terminal

NAME = "train-set"
HELP = """Write training data from the train part of a split (explaincheck split).

--format openai-chat  OpenAI chat fine-tuning JSONL: {"messages": [user, assistant]} per line
--format sft          the conversational "messages" records TRL's SFTTrainer reads
--format dpo          TRL's preference records: prompt, chosen (the oracle's answer) and
                      rejected (an LLM's own failing reply), one per distinct failing reply

The user turn is the prompt explaincheck asked; the assistant turn is the oracle's answer in the
reply schema. Every record is checked with the project's grader: a chosen answer only if it
passes, a rejected reply only if it fails. --explain starts each assistant turn with the
oracle's values behind the answer ("Q(left) = 0.53 > Q(up) = 0.27"). DIR gets train.jsonl,
index.jsonl (each record's origin, line by line), dataset_info.json and a README.md card.

examples:
  explaincheck train-set --db results.sqlite --split split.json --format sft --out sft
  explaincheck train-set --db results.sqlite --split split.json --format dpo --out dpo --explain
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from explaincheck.core.analysis.train_set import FORMATS

    parser.add_argument("--db", default="results.sqlite", help="results database")
    parser.add_argument("--split", required=True, metavar="split.json", help="the split")
    parser.add_argument("--format", required=True, choices=FORMATS, help="the records' format")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder to write into")
    parser.add_argument(
        "--explain", action="store_true", help="the oracle's values before each answer"
    )
    parser.add_argument("--json", action="store_true", help="print dataset_info.json")


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.analysis.dataset_card import (
        INFO_FILE,
        OPENAI_MINIMUM,
        write_training_set,
    )
    from explaincheck.core.analysis.train_set import OPENAI_CHAT, build_training_set
    from explaincheck.core.campaign.split_file import read_split

    split = read_split(args.split)
    found = build_training_set(args.db, split, args.format, explain=args.explain)
    folder = write_training_set(found, split, args.db, args.out)
    info = json.loads((folder / INFO_FILE).read_text(encoding="utf-8"))
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    lines = [f"{info['records']} {args.format} records in {folder} (sha256 {info['data_sha256']})"]
    lines += [f"  {c}: {n}" for c, n in info["records_per_category"].items()]
    lines += [f"  left out, {why}: {n}" for why, n in info["left_out"].items()]
    if args.format == OPENAI_CHAT and info["records"] < OPENAI_MINIMUM:
        lines.append(f"  note: OpenAI's fine-tuning wants at least {OPENAI_MINIMUM} examples")
    print(safe_terminal("\n".join(lines)))
    return 0
